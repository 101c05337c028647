"""Date inputs and windows (pure; property-tested). Every endpoint that takes dates uses these.

Rules:
- inputs are ``YYYY-MM-DD`` or ISO 8601 datetimes; a datetime without offset is UTC;
- a date-only start means 00:00:00Z; a date-only end is inclusive through the end of that day,
  so a datetime start and a date-only end on the same day is a valid window;
- a start after the end is ``date_window_too_long``, wherever a window is given;
- the 60-day rule compares UTC calendar dates: ``end_date - start_date <= 60 days``;
- the default search window runs from 60 days before today through today; a list window given
  only an end covers its default span before that end;
- a date whose window would leave the calendar (before 0001-01-01 or after 9999-12-31, for
  instance an end of 9999-12-31 whose next day does not exist) is ``invalid_request``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from herald.errors import DateWindowIncomplete, DateWindowTooLong, FieldIssue, InvalidRequest

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TICK = timedelta(microseconds=1)
# The last day whose one-day window [D, D+1) exists: a dated job cannot search a later one.
LAST_WHOLE_DAY = date.max - timedelta(days=1)


@dataclass(frozen=True, slots=True)
class DateInput:
    """A parsed date input: the instant it denotes, whether it was a bare date, and its field."""

    instant: datetime
    date_only: bool
    field: str = "date"

    @property
    def utc_date(self) -> date:
        return self.instant.astimezone(UTC).date()


@dataclass(frozen=True, slots=True)
class Window:
    """A half-open window ``[start, end)`` in UTC."""

    start: datetime
    end: datetime

    def contains(self, instant: datetime) -> bool:
        return self.start <= instant < self.end


def out_of_range(field: str) -> InvalidRequest:
    return InvalidRequest(
        f"{field} is too close to the edge of the calendar (0001-01-01 to 9999-12-31)",
        details=[FieldIssue(field, "outside the supported date range")],
    )


def shift(instant: datetime, delta: timedelta, *, field: str) -> datetime:
    """``instant + delta``, or ``invalid_request`` naming ``field`` when it leaves the calendar."""
    try:
        return instant + delta
    except OverflowError:
        raise out_of_range(field) from None


def midnight(day: date) -> datetime:
    """``D 00:00Z``."""
    return datetime.combine(day, time.min, UTC)


def parse_date_input(value: str, *, field: str) -> DateInput:
    """Parse ``YYYY-MM-DD`` or an ISO 8601 datetime; raises InvalidRequest naming ``field``."""
    text = value.strip()
    try:
        if _DATE_ONLY.match(text):
            return DateInput(midnight(date.fromisoformat(text)), date_only=True, field=field)
        parsed = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise InvalidRequest(
            f"{field} must be a date (YYYY-MM-DD) or an ISO 8601 datetime",
            details=[FieldIssue(field, f"not a date or datetime: {value!r}")],
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        instant = parsed.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00
        raise out_of_range(field) from None
    return DateInput(instant, date_only=False, field=field)


def parse_optional_date_input(value: str | None, *, field: str) -> DateInput | None:
    """:func:`parse_date_input` for a parameter that may be left out: ``None`` when it is, and
    an error for an empty string as for any other text that is not a date."""
    return None if value is None else parse_date_input(value, field=field)


def end_instant(value: DateInput) -> datetime:
    """The exclusive end of a window whose inclusive end is ``value``."""
    return shift(value.instant, timedelta(days=1) if value.date_only else _TICK, field=value.field)


def is_after(start: DateInput, end: DateInput) -> bool:
    """Whether ``start`` lies after the inclusive ``end`` (a date-only end covers its whole day)."""
    if end.date_only:
        return start.utc_date > end.utc_date
    return start.instant > end.instant


def start_after_end(start_field: str, end_field: str) -> DateWindowTooLong:
    return DateWindowTooLong(
        f"{start_field} is after {end_field}",
        details=[FieldIssue(start_field, f"must not be after {end_field}")],
    )


def check_order(start: DateInput | None, end: DateInput | None) -> None:
    """A start after the end is ``date_window_too_long``, wherever a window is given."""
    if start is not None and end is not None and is_after(start, end):
        raise start_after_end(start.field, end.field)


def resolve_window(
    start: DateInput | None,
    end: DateInput | None,
    *,
    today: date,
    default_days: int = 60,
    max_days: int | None = 60,
    require_both: bool = True,
) -> Window:
    """The window of a search: both dates or neither, at most ``max_days`` calendar days apart.

    ``require_both=False`` lets either bound come alone, the other defaulting as when absent.
    """
    if (start is None) != (end is None) and require_both:
        missing = "end_date" if end is None else "start_date"
        raise DateWindowIncomplete(
            "start_date and end_date must be given together",
            details=[FieldIssue(missing, "required when the other date is present")],
        )
    check_order(start, end)
    if start and end and max_days is not None and (end.utc_date - start.utc_date).days > max_days:
        raise DateWindowTooLong(
            f"the date window spans more than {max_days} days",
            details=[FieldIssue(end.field, f"at most {max_days} days after {start.field}")],
        )
    lo = start.instant if start else midnight(today - timedelta(days=default_days))
    hi = end_instant(end) if end else midnight(today + timedelta(days=1))
    if lo >= hi:
        raise start_after_end(start.field if start else "start_date", "end_date")
    return Window(lo, hi)


def lookback_window(
    start: DateInput | None,
    end: DateInput | None,
    *,
    now: datetime,
    days: int,
    from_midnight: bool,
) -> Window:
    """A list window: either bound may come alone, and there is no length limit.

    A missing end is now; a missing start is ``days`` before the end, at 00:00Z of that day when
    ``from_midnight`` (the timeline's 60 days) or to the microsecond (the cluster list's 7 days).
    """
    check_order(start, end)
    hi = end_instant(end) if end else now + _TICK
    field = end.field if end else "start_date"
    if start is not None:
        lo = start.instant
    elif from_midnight:
        try:
            lo = midnight((end.utc_date if end else now.date()) - timedelta(days=days))
        except OverflowError:
            raise out_of_range(field) from None
    else:
        lo = shift(hi, -timedelta(days=days), field=field)
    if lo >= hi:
        raise start_after_end(start.field if start else "start_date", end.field if end else "now")
    return Window(lo, hi)


def day_window(day: date) -> Window:
    """The UTC calendar day ``[D 00:00Z, D+1 00:00Z)`` (a monitor's dated job)."""
    start = midnight(day)
    return Window(start, shift(start, timedelta(days=1), field="published_date"))
