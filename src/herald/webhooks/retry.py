"""The retry schedule as data (stable): 5 attempts in all, then the delivery is ``failed``.

Each delay counts from the *prior failure*, not from the event: a target that takes the full 10 s
to fail still gets its next attempt 5 minutes after that failure.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

# ATTEMPT_DELAYS[n - 1] is the wait before attempt n (attempt 1 goes out as soon as possible).
ATTEMPT_DELAYS: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(minutes=5),
    timedelta(minutes=60),
    timedelta(hours=3),
    timedelta(hours=24),
)
MAX_ATTEMPTS = len(ATTEMPT_DELAYS)

DeliveryStatus = Literal["pending", "retrying", "succeeded", "failed"]
DELIVERY_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "retrying", "succeeded", "failed")


def delay_before_attempt(attempt_number: int) -> timedelta:
    """Wait between the failure of attempt ``attempt_number - 1`` and attempt ``attempt_number``."""
    if not 1 <= attempt_number <= MAX_ATTEMPTS:
        raise ValueError(f"attempt numbers run from 1 to {MAX_ATTEMPTS}, not {attempt_number}")
    return ATTEMPT_DELAYS[attempt_number - 1]


def next_attempt_at(attempts_made: int, failed_at: datetime) -> datetime | None:
    """When to try again after the ``attempts_made``-th attempt failed at ``failed_at``;
    ``None`` when no attempt is left (the delivery is then ``failed``)."""
    if attempts_made < 1:
        raise ValueError("next_attempt_at is asked after at least one failed attempt")
    if attempts_made >= MAX_ATTEMPTS:
        return None
    return failed_at + delay_before_attempt(attempts_made + 1)


def status_after_failure(attempts_made: int) -> DeliveryStatus:
    """Status of a delivery whose ``attempts_made``-th attempt just failed."""
    if attempts_made < 1:
        raise ValueError("status_after_failure is asked after at least one failed attempt")
    return "failed" if attempts_made >= MAX_ATTEMPTS else "retrying"
