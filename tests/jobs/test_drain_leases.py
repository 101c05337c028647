"""A job run from a command's own thread (`herald ingest` and the demo waiting for their items,
`herald enrich`) keeps its lease while it runs, as a worker's loops do: a worker process beside
it must not take the job over and run it a second time."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

from sqlalchemy import select

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.jobs import queue
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.jobs import handlers

LEASE = 5


def lease_expiry(runtime: Runtime) -> object:
    with runtime.sessions.read() as session:
        return session.scalar(select(Job.lease_expires_at))


def test_a_drained_job_keeps_its_lease_while_it_runs(
    settings: Settings, clock: FrozenClock
) -> None:
    runtime = Runtime(settings.model_copy(update={"job_lease_seconds": LEASE}), clock=clock)
    handlers.calls.clear()
    handlers.hold_started.clear()
    handlers.hold_release.clear()
    try:
        with runtime.sessions.write() as session:
            queue.enqueue(session, "test.holds", {"name": "once"}, clock=clock)
        drained: list[int] = []
        command = threading.Thread(target=lambda: drained.append(Worker(runtime).drain()))
        command.start()
        assert handlers.hold_started.wait(30)
        claimed_until = lease_expiry(runtime)
        clock.advance(timedelta(seconds=LEASE - 1))
        deadline = time.monotonic() + 3 * LEASE
        while lease_expiry(runtime) == claimed_until and time.monotonic() < deadline:
            time.sleep(0.1)
        clock.advance(timedelta(seconds=2))  # past the lease as first claimed
        taken_over = Worker(runtime).run_once()
        handlers.hold_release.set()
        command.join(30)
        assert taken_over == 0
        assert drained == [1]
        assert handlers.calls == ["once"]
    finally:
        handlers.hold_release.set()
        runtime.close()
