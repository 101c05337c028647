"""Dated-job rules: run dates, the 72-hour rule, classification, validation, task status."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from itertools import pairwise
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herald.errors import InvalidRequest, TooManyDates
from herald.monitors.rules import (
    DatedJobRecord,
    DatedJobStatus,
    DateState,
    completes_date,
    count_new,
    is_complete,
    ledger_status,
    ledger_summary,
    plan_dates,
    request_summary,
    run_dates,
    task_status,
    task_summary,
    validate_backfill_dates,
)

D = date(2026, 11, 20)
D_MIDNIGHT = datetime(2026, 11, 20, tzinfo=UTC)
STATUSES: tuple[DatedJobStatus, ...] = get_args(DatedJobStatus)


# --- the four dated jobs of a run -------------------------------------------------------------


@pytest.mark.parametrize(
    "now",
    [
        datetime(2026, 11, 25, 0, 0, tzinfo=UTC),
        datetime(2026, 11, 25, 23, 59, 59, 999999, tzinfo=UTC),
        # 20:00 on the 24th in New York is already the 25th in UTC
        datetime(2026, 11, 24, 20, 0, tzinfo=timezone(timedelta(hours=-5))),
    ],
)
def test_run_dates_are_the_utc_day_and_the_trailing_three(now: datetime) -> None:
    assert run_dates(now) == [
        date(2026, 11, 25),
        date(2026, 11, 24),
        date(2026, 11, 23),
        date(2026, 11, 22),
    ]


def test_run_dates_cross_month_and_year() -> None:
    assert run_dates(datetime(2027, 1, 2, 5, tzinfo=UTC)) == [
        date(2027, 1, 2),
        date(2027, 1, 1),
        date(2026, 12, 31),
        date(2026, 12, 30),
    ]


@given(st.datetimes(timezones=st.timezones()))
def test_run_dates_property(now: datetime) -> None:
    dates = run_dates(now)
    assert dates[0] == now.astimezone(UTC).date()
    assert [dates[0] - d for d in dates] == [timedelta(days=i) for i in range(4)]


# --- the 72-hour completeness rule -----------------------------------------------------------


def test_a_job_must_start_strictly_more_than_72_hours_after_midnight() -> None:
    at_72h = D_MIDNIGHT + timedelta(hours=72)
    assert not completes_date(D, at_72h)
    assert completes_date(D, at_72h + timedelta(microseconds=1))
    assert not completes_date(D, at_72h - timedelta(hours=1))


def test_completeness_needs_a_success_that_started_late_enough() -> None:
    late = D_MIDNIGHT + timedelta(hours=73)
    early = D_MIDNIGHT + timedelta(hours=10)
    assert not is_complete(D, [])
    assert not is_complete(D, [DatedJobRecord("succeeded", early)])
    assert not is_complete(D, [DatedJobRecord("failed", late)])
    assert not is_complete(D, [DatedJobRecord("running", late)])
    assert not is_complete(D, [DatedJobRecord("succeeded", None)])
    assert is_complete(D, [DatedJobRecord("succeeded", early), DatedJobRecord("succeeded", late)])
    # a later failure does not undo completeness: the results are still in the store
    assert is_complete(D, [DatedJobRecord("succeeded", late), DatedJobRecord("failed", late)])


@given(st.dates(), st.integers(-10 * 86400, 10 * 86400))
def test_completes_date_is_a_threshold(day: date, seconds: int) -> None:
    started = datetime.combine(day, datetime.min.time(), UTC) + timedelta(seconds=seconds)
    assert completes_date(day, started) == (seconds > 72 * 3600)


# --- classification of requested dates --------------------------------------------------------

LATE = datetime(2026, 11, 24, 8, 30, tzinfo=UTC)


def test_run_now_reports_complete_dates_and_skips_running_ones() -> None:
    today = date(2026, 11, 25)
    dates = run_dates(datetime(2026, 11, 25, 9, tzinfo=UTC))
    states = {
        today: DateState(in_flight=True),
        date(2026, 11, 22): DateState(complete=True, latest_indexed_content=LATE),
    }
    plans = plan_dates(dates, states)
    assert [(p.published_date.day, p.outcome) for p in plans] == [
        (25, "already_running"),
        (24, "queued"),
        (23, "queued"),
        (22, "already_complete"),
    ]
    assert plans[3].latest_indexed_content == LATE
    assert request_summary(plans).to_json() == {
        "requested": 4,
        "queued": 2,
        "already_complete": 1,
        "already_running": 1,
        "failed": 0,
    }


def test_backfill_skip_complete_false_requeues_complete_dates_but_never_running_ones() -> None:
    dates = [date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)]
    states = {
        dates[0]: DateState(complete=True),
        dates[1]: DateState(complete=True, in_flight=True),
    }
    plans = plan_dates(dates, states, skip_complete=False)
    assert [(p.outcome, p.already_complete) for p in plans] == [
        ("queued", True),
        ("already_running", True),
        ("queued", False),
    ]
    summary = request_summary(plans)
    assert (summary.queued, summary.already_complete, summary.already_running) == (2, 0, 1)


def test_backfill_skip_complete_true_skips_complete_dates() -> None:
    dates = [date(2026, 10, 1), date(2026, 10, 2)]
    plans = plan_dates(dates, {dates[0]: DateState(complete=True)}, skip_complete=True)
    assert [p.outcome for p in plans] == ["already_complete", "queued"]


states_strategy = st.builds(DateState, complete=st.booleans(), in_flight=st.booleans())


@given(
    st.lists(st.dates(), unique=True, max_size=100),
    st.dictionaries(st.dates(), states_strategy),
    st.booleans(),
)
def test_every_requested_date_has_exactly_one_outcome(
    dates: list[date], states: dict[date, DateState], skip_complete: bool
) -> None:
    plans = plan_dates(dates, states, skip_complete=skip_complete)
    assert [p.published_date for p in plans] == dates
    for plan in plans:
        state = states.get(plan.published_date, DateState())
        assert plan.already_complete == state.complete
        if state.in_flight:
            assert plan.outcome == "already_running"  # never queued twice
        elif state.complete and skip_complete:
            assert plan.outcome == "already_complete"
        else:
            assert plan.outcome == "queued"
    s = request_summary(plans)
    assert s.requested == len(dates) == s.queued + s.already_complete + s.already_running + s.failed


@given(
    st.lists(st.dates(), unique=True, max_size=100),
    st.dictionaries(st.dates(), states_strategy),
    st.dates(),
)
def test_dates_past_retention_are_never_queued(
    dates: list[date], states: dict[date, DateState], retained_from: date
) -> None:
    plans = plan_dates(dates, states, retained_from=retained_from)
    assert [p.published_date for p in plans] == dates
    for plan in plans:
        if plan.published_date < retained_from:
            assert plan.outcome == "past_retention"
        else:
            assert plan.outcome != "past_retention"
    past = sum(p.outcome == "past_retention" for p in plans)
    s = request_summary(plans)
    assert s.requested == len(dates) == s.queued + s.already_complete + s.already_running + past


# --- backfill date validation ----------------------------------------------------------------


def days(n: int, start: date = date(2026, 1, 1)) -> list[str]:
    return [(start + timedelta(days=i)).isoformat() for i in range(n)]


def test_one_hundred_dates_are_accepted_in_order() -> None:
    raw = days(100)
    assert [d.isoformat() for d in validate_backfill_dates(raw)] == raw


def test_one_hundred_and_one_dates_are_too_many() -> None:
    with pytest.raises(TooManyDates) as err:
        validate_backfill_dates(days(101))
    assert err.value.code == "too_many_dates"
    assert err.value.status == 400


def test_too_many_wins_over_bad_entries() -> None:
    with pytest.raises(TooManyDates):
        validate_backfill_dates(["nope"] * 101)


@pytest.mark.parametrize(
    ("raw", "fields"),
    [
        (["2026-02-30"], ["dates.0"]),
        (["2026-1-05"], ["dates.0"]),
        (["2026-01-05T00:00:00Z"], ["dates.0"]),
        ([20260105], ["dates.0"]),
        ([None], ["dates.0"]),
        (["2026-01-05", "2026-01-06", "2026-01-05"], ["dates.2"]),
        (["2026-13-01", "ok", "2026-01-01"], ["dates.0", "dates.1"]),
        ([], ["dates"]),
        ("2026-01-05", ["dates"]),
        (None, ["dates"]),
    ],
)
def test_bad_dates_are_invalid_request_naming_each_entry(raw: object, fields: list[str]) -> None:
    with pytest.raises(InvalidRequest) as err:
        validate_backfill_dates(raw)
    assert err.value.code == "invalid_request"
    assert [d.field for d in err.value.details] == fields


@given(st.lists(st.dates(), unique=True, min_size=1, max_size=100))
def test_distinct_dates_round_trip(dates: list[date]) -> None:
    assert validate_backfill_dates([d.isoformat() for d in dates]) == dates


@settings(max_examples=20)
@given(st.lists(st.dates(), min_size=101, max_size=150))
def test_any_list_over_100_is_too_many(dates: list[date]) -> None:
    with pytest.raises(TooManyDates):
        validate_backfill_dates([d.isoformat() for d in dates])


# --- parent task status ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("children", "expected"),
    [
        ([], "succeeded"),
        (["queued"] * 4, "queued"),
        (["running", "queued", "queued", "queued"], "running"),
        (["succeeded", "queued", "queued", "queued"], "running"),
        (["failed", "queued"], "running"),
        (["succeeded", "running"], "running"),
        (["succeeded"] * 4, "succeeded"),
        (["succeeded", "succeeded", "failed", "succeeded"], "failed"),
        (["failed", "failed"], "failed"),
        (["skipped", "succeeded"], "succeeded"),
        (["skipped", "queued"], "running"),
        (["skipped"], "succeeded"),
    ],
)
def test_task_status(children: list[DatedJobStatus], expected: str) -> None:
    assert task_status(children) == expected


@st.composite
def child_histories(draw: st.DrawFn) -> list[list[DatedJobStatus]]:
    """A random interleaving of children moving queued -> running -> succeeded|failed."""
    count = draw(st.integers(1, 6))
    finals: list[DatedJobStatus] = [
        draw(st.sampled_from(["succeeded", "failed"])) for _ in range(count)
    ]
    paths: list[list[DatedJobStatus]] = [["running", final] for final in finals]
    state: list[DatedJobStatus] = ["queued"] * count
    history = [list(state)]
    while any(paths):
        index = draw(st.sampled_from([i for i, p in enumerate(paths) if p]))
        state[index] = paths[index].pop(0)
        history.append(list(state))
    return history


@given(child_histories())
def test_task_status_moves_forward_only_and_ends_with_the_children(
    history: list[list[DatedJobStatus]],
) -> None:
    order = {"queued": 0, "running": 1, "succeeded": 2, "failed": 2}
    statuses = [task_status(children) for children in history]
    assert statuses[0] == "queued"
    assert all(order[a] <= order[b] for a, b in pairwise(statuses))
    final = history[-1]
    assert statuses[-1] == ("failed" if "failed" in final else "succeeded")
    for children, status in zip(history, statuses, strict=True):
        finished = all(c in {"succeeded", "failed"} for c in children)
        assert (status in {"succeeded", "failed"}) == finished


@given(st.lists(st.sampled_from(STATUSES), max_size=100), st.integers(0, 20))
def test_task_summary_counts_each_requested_date_once(
    children: list[DatedJobStatus], not_queued: int
) -> None:
    summary = task_summary(len(children) + not_queued, children)
    counts = summary.to_json()
    assert counts["requested"] == sum(v for k, v in counts.items() if k != "requested")
    assert summary.skipped == not_queued + children.count("skipped")


def test_task_summary_rejects_more_children_than_dates() -> None:
    with pytest.raises(ValueError, match="more children"):
        task_summary(1, ["queued", "queued"])


# --- ledger and counts ----------------------------------------------------------------------------


def test_ledger_status_shows_queued_jobs_as_running() -> None:
    assert [ledger_status(s) for s in STATUSES] == [
        "running",
        "running",
        "succeeded",
        "failed",
        "skipped",
    ]
    assert ledger_summary(["running", "failed", "failed"]).to_json() == {
        "total": 3,
        "running": 1,
        "succeeded": 0,
        "failed": 2,
        "skipped": 0,
    }


def test_count_new_counts_distinct_matches_and_new_ones() -> None:
    outcome = count_new(["cnt_a", "cnt_b", "cnt_a", "cnt_c"], already_stored=["cnt_b", "cnt_z"])
    assert (outcome.result_count, outcome.new_result_count) == (3, 2)
    assert outcome.new_content_ids == ("cnt_a", "cnt_c")


@given(st.lists(st.sampled_from("abcdefgh")), st.lists(st.sampled_from("abcdefgh")))
def test_count_new_property(matched: list[str], stored: list[str]) -> None:
    outcome = count_new(matched, stored)
    assert outcome.result_count == len(set(matched))
    assert set(outcome.new_content_ids) == set(matched) - set(stored)
    assert outcome.new_result_count == len(outcome.new_content_ids)
