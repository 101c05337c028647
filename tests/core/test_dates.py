from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herald.core.dates import day_window, parse_date_input, resolve_window
from herald.errors import DateWindowIncomplete, DateWindowTooLong, InvalidRequest

TODAY = date(2026, 11, 25)
dates = st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1))


def test_date_only_start_is_midnight_utc_and_end_is_inclusive() -> None:
    start = parse_date_input("2026-11-01", field="start_date")
    end = parse_date_input("2026-11-02", field="end_date")
    window = resolve_window(start, end, today=TODAY)
    assert window.start == datetime(2026, 11, 1, tzinfo=UTC)
    assert window.end == datetime(2026, 11, 3, tzinfo=UTC)
    assert window.contains(datetime(2026, 11, 2, 23, 59, 59, tzinfo=UTC))
    assert not window.contains(datetime(2026, 11, 3, tzinfo=UTC))


def test_datetime_without_offset_is_utc_and_offsets_convert() -> None:
    assert parse_date_input("2026-11-01T10:00:00", field="x").instant == datetime(
        2026, 11, 1, 10, tzinfo=UTC
    )
    assert parse_date_input("2026-11-01T10:00:00+02:00", field="x").instant == datetime(
        2026, 11, 1, 8, tzinfo=UTC
    )
    assert parse_date_input("2026-11-01T10:00:00Z", field="x").instant.tzinfo == UTC


@pytest.mark.parametrize("bad", ["", "yesterday", "2026-13-01", "2026-02-30", "11/25/2026"])
def test_unparseable_dates_name_the_field(bad: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        parse_date_input(bad, field="start_date")
    assert info.value.details[0].field == "start_date"


def test_default_window_is_sixty_days_back_through_today() -> None:
    window = resolve_window(None, None, today=TODAY)
    assert window.start == datetime(2026, 9, 26, tzinfo=UTC)
    assert window.end == datetime(2026, 11, 26, tzinfo=UTC)


def test_one_date_alone_is_incomplete() -> None:
    start = parse_date_input("2026-11-01", field="start_date")
    with pytest.raises(DateWindowIncomplete):
        resolve_window(start, None, today=TODAY)
    with pytest.raises(DateWindowIncomplete):
        resolve_window(None, start, today=TODAY)


def test_exactly_sixty_days_is_allowed_sixty_one_is_not() -> None:
    start = parse_date_input("2026-09-01", field="start_date")
    ok = parse_date_input("2026-10-31", field="end_date")
    resolve_window(start, ok, today=TODAY)
    too_long = parse_date_input("2026-11-01", field="end_date")
    with pytest.raises(DateWindowTooLong):
        resolve_window(start, too_long, today=TODAY)


def test_start_after_end_is_rejected() -> None:
    with pytest.raises(DateWindowTooLong):
        resolve_window(
            parse_date_input("2026-11-02", field="s"),
            parse_date_input("2026-11-01", field="e"),
            today=TODAY,
        )


@given(dates, st.integers(min_value=0, max_value=120))
def test_sixty_day_rule_compares_calendar_dates(start_day: date, span: int) -> None:
    start = parse_date_input(start_day.isoformat(), field="start_date")
    end_day = start_day + timedelta(days=span)
    end = parse_date_input(end_day.isoformat() + "T23:59:59Z", field="end_date")
    if span <= 60:
        window = resolve_window(start, end, today=TODAY)
        assert window.start < window.end
        assert (window.end - window.start) <= timedelta(days=61)
    else:
        with pytest.raises(DateWindowTooLong):
            resolve_window(start, end, today=TODAY)


@given(dates)
def test_default_window_always_includes_today_and_spans_61_calendar_days(today: date) -> None:
    window = resolve_window(None, None, today=today)
    assert window.contains(datetime(today.year, today.month, today.day, 23, 59, tzinfo=UTC))
    assert window.end - window.start == timedelta(days=61)


@given(dates)
def test_day_window_is_one_utc_day(day: date) -> None:
    window = day_window(day)
    assert window.end - window.start == timedelta(days=1)
    assert window.start.date() == day
    assert window.start.tzinfo == UTC


def test_list_windows_accept_a_single_bound_when_allowed() -> None:
    start = parse_date_input("2026-11-01", field="start_date")
    window = resolve_window(start, None, today=TODAY, require_both=False, max_days=None)
    assert window.start == datetime(2026, 11, 1, tzinfo=UTC)
    assert window.end == datetime(2026, 11, 26, tzinfo=UTC)
