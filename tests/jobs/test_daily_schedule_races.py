"""Two schedulers (two `herald serve` on one database) queue the day's retention and history
jobs once: the second one's check of today's job cannot pass while the first one queues it and
a worker claims it (which takes it out of the queue's unique key)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import event, func, select, update

from herald.config import Settings
from herald.content.tasks import schedule_retention
from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.jobs.history import schedule_prune
from herald.runtime import Runtime


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"retention_days": 30, "history_days": 30})


@pytest.mark.parametrize(
    ("schedule", "prefix"), [(schedule_retention, "retention:"), (schedule_prune, "history:")]
)
def test_two_schedulers_queue_the_days_job_once(
    runtime: Runtime, clock: FrozenClock, schedule: Callable[[Runtime], bool], prefix: str
) -> None:
    key = f"{prefix}{clock.now().date().isoformat()}"
    paused, release = threading.Event(), threading.Event()
    second: list[threading.Thread] = []

    def pause_before_queueing(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # The second scheduler has checked for today's job and is about to queue it.
        if statement.lstrip().upper().startswith("INSERT INTO JOBS") and (
            threading.current_thread() in second
        ):
            paused.set()
            release.wait(30)

    def first_then_a_worker_claims() -> None:
        schedule(runtime)
        with runtime.sessions.write() as session:
            session.execute(update(Job).where(Job.unique_key == key).values(status="running"))

    event.listen(runtime.engine, "before_cursor_execute", pause_before_queueing)
    try:
        second.append(threading.Thread(target=schedule, args=(runtime,)))
        second[0].start()
        assert paused.wait(30)
        first = threading.Thread(target=first_then_a_worker_claims)
        first.start()
        first.join(2)  # done at once without a lock; waits for the second one with it
        release.set()
        second[0].join(30)
        first.join(30)
    finally:
        release.set()
        event.remove(runtime.engine, "before_cursor_execute", pause_before_queueing)
    with runtime.sessions.read() as session:
        count = session.scalar(select(func.count()).select_from(Job).where(Job.unique_key == key))
    assert count == 1
