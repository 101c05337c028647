"""The pinned retry schedule: +0, +5 min, +60 min, +3 h, +24 h after the prior failure; 5 in all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herald.webhooks.retry import (
    ATTEMPT_DELAYS,
    MAX_ATTEMPTS,
    delay_before_attempt,
    next_attempt_at,
    status_after_failure,
)

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_the_pinned_schedule() -> None:
    assert MAX_ATTEMPTS == 5
    assert [delay_before_attempt(n) for n in range(1, 6)] == [
        timedelta(0),
        timedelta(minutes=5),
        timedelta(minutes=60),
        timedelta(hours=3),
        timedelta(hours=24),
    ]
    assert next_attempt_at(1, T0) == T0 + timedelta(minutes=5)
    assert next_attempt_at(4, T0) == T0 + timedelta(hours=24)
    assert next_attempt_at(5, T0) is None
    assert [status_after_failure(n) for n in range(1, 6)] == ["retrying"] * 4 + ["failed"]


@pytest.mark.parametrize("bad", [0, 6, -1])
def test_attempt_numbers_outside_the_schedule_are_errors(bad: int) -> None:
    with pytest.raises(ValueError):
        delay_before_attempt(bad)


def test_next_attempt_needs_a_failed_attempt() -> None:
    with pytest.raises(ValueError):
        next_attempt_at(0, T0)
    with pytest.raises(ValueError):
        status_after_failure(0)


@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=5, max_size=5))
def test_replaying_a_run_of_failures(attempt_durations: list[int]) -> None:
    """Each attempt fails after some seconds; the next one is due exactly its delay later, and
    the delivery gives up after the fifth failure."""
    due = T0
    attempts = 0
    for duration in attempt_durations:
        attempts += 1
        failed_at = due + timedelta(seconds=duration)
        nxt = next_attempt_at(attempts, failed_at)
        if attempts == MAX_ATTEMPTS:
            assert nxt is None
            assert status_after_failure(attempts) == "failed"
            break
        assert nxt == failed_at + ATTEMPT_DELAYS[attempts]
        assert status_after_failure(attempts) == "retrying"
        due = nxt
    assert attempts == MAX_ATTEMPTS
    busy = timedelta(seconds=sum(attempt_durations[:4]))
    last_due = T0 + busy + sum(ATTEMPT_DELAYS, timedelta(0))
    assert due == last_due  # 28 h 5 min of waiting in all, plus the time spent failing
