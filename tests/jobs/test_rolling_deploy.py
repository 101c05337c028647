"""What a rolling deploy brings to the queue: jobs of kinds this process does not know, and
handlers that hang. Both on SQLite and PostgreSQL, with real worker threads and processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from sqlalchemy import insert, select

from herald.core.clock import FrozenClock, SystemClock
from herald.db.models.job import Job
from herald.db.models.workspace import Team
from herald.jobs import queue
from herald.jobs.maintenance import fail_unknown_kind_jobs
from herald.jobs.registry import RetryPolicy, job_handler, unregister
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.jobs import handlers

ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def insert_job_of_a_newer_version(runtime: Runtime, kind: str = "future.kind") -> int:
    """A row as a newer release enqueues it: its kind has no handler in this process."""
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        return int(
            session.execute(
                insert(Job)
                .values(
                    kind=kind,
                    lane="default",
                    payload={"name": "from the future"},
                    status="queued",
                    priority=5,  # ahead of everything else
                    run_at=now,
                    attempts=0,
                    max_attempts=5,
                    created_at=now,
                    updated_at=now,
                )
                .returning(Job.id)
            ).scalar_one()
        )


def job(runtime: Runtime, job_id: int) -> Job | None:
    with runtime.sessions.read() as session:
        return session.get(Job, job_id)


def team_names(runtime: Runtime) -> list[str]:
    with runtime.sessions.read() as session:
        return sorted(session.scalars(select(Team.name)))


def test_a_job_of_an_unknown_kind_is_left_for_a_process_that_knows_it(runtime: Runtime) -> None:
    future = insert_job_of_a_newer_version(runtime)
    with runtime.sessions.write() as session:
        queue.enqueue(session, "test.create_team", {"name": "known"}, clock=runtime.clock)
    assert Worker(runtime).drain() == 1  # only the known job ran
    assert team_names(runtime) == ["known"]
    row = job(runtime, future)
    assert row is not None
    assert (row.status, row.attempts, row.worker_id) == ("queued", 0, None)

    # Busy workers leave it alone too: it is never claimed, so never retried in a loop.
    worker = Worker(runtime, lane_threads={"default": 2})
    worker.start()
    try:
        time.sleep(1.5)  # three poll intervals
    finally:
        worker.stop()
    row = job(runtime, future)
    assert row is not None
    assert (row.status, row.attempts) == ("queued", 0)

    # A process of the newer version (it has the handler) runs it.
    ran: list[str] = []

    @job_handler("future.kind")
    def _future(ctx: object, jobs: object) -> None:
        ran.append("ran")

    try:
        assert Worker(runtime).drain() == 1
    finally:
        unregister("future.kind")
    assert ran == ["ran"]
    assert job(runtime, future) is None


def test_an_unknown_kind_fails_with_a_clear_error_after_the_bound(
    runtime: Runtime, clock: FrozenClock
) -> None:
    future = insert_job_of_a_newer_version(runtime)
    with runtime.sessions.write() as session:
        known = queue.enqueue(session, "test.create_team", {"name": "x"}, clock=clock)
    assert runtime.settings.job_unknown_kind_seconds == 86_400
    clock.advance(timedelta(hours=23))
    assert fail_unknown_kind_jobs(runtime) == 0
    clock.advance(timedelta(hours=2))
    assert fail_unknown_kind_jobs(runtime) == 1
    row = job(runtime, future)
    assert row is not None
    assert row.status == "failed"
    assert row.last_error is not None
    assert row.last_error.startswith("UnknownJobKind: ")
    # A job a newer worker leased and then died with waits the same bound after its lease.
    leased = insert_job_of_a_newer_version(runtime)
    with runtime.sessions.write() as session:
        row = session.get(Job, leased)
        assert row is not None
        row.status, row.worker_id = "running", "newer:1"
        row.lease_expires_at = clock.now()
    clock.advance(timedelta(hours=23))
    assert fail_unknown_kind_jobs(runtime) == 0
    clock.advance(timedelta(hours=2))
    assert fail_unknown_kind_jobs(runtime) == 1
    gone = job(runtime, leased)
    assert gone is not None
    assert (gone.status, gone.worker_id) == ("failed", None)
    assert known is not None
    kept = job(runtime, known)
    assert kept is not None
    assert kept.status == "queued"


def test_a_hanging_handler_is_stopped_and_retried_by_its_policy(
    runtime: Runtime, clock: FrozenClock
) -> None:
    handlers.hang_started.clear()
    handlers.hang_interrupted.clear()
    with runtime.sessions.write() as session:
        job_id = queue.enqueue(session, "test.hangs_once", {"name": "hung"}, clock=clock)
    assert job_id is not None
    worker = Worker(runtime, lane_threads={"default": 1})
    worker.start()
    try:
        assert handlers.hang_started.wait(10)
        clock.advance(timedelta(seconds=2))
        assert worker.stop_overrunning() == 0  # under the kind's 3 s
        clock.advance(timedelta(seconds=2))
        assert worker.stop_overrunning() == 1
        assert handlers.hang_interrupted.wait(10)  # the stuck thread was stopped
        row = job(runtime, job_id)
        assert row is not None
        assert (row.status, row.attempts) == ("queued", 1)
        assert row.last_error is not None
        assert row.last_error.startswith("JobTimeout: ")
        assert row.run_at == clock.now() + timedelta(seconds=1)  # the kind's retry delay
        assert team_names(runtime) == []
        clock.advance(timedelta(seconds=1))
        runtime.job_signal.set()
        wait_for(lambda: job(runtime, job_id) is None, 10)  # a fresh thread ran attempt 2
    finally:
        worker.stop()
    assert team_names(runtime) == ["hung-2"]


def test_a_hang_at_the_last_attempt_fails_for_good(runtime: Runtime, clock: FrozenClock) -> None:
    gave_up: list[str] = []
    hung_threads: list[threading.Thread] = []

    @job_handler(
        "test.hangs_always",
        retry=RetryPolicy(max_attempts=1, delays=(1.0,)),
        max_run_seconds=1.0,
        on_give_up=lambda session, job, error: gave_up.append(error),
    )
    def _hangs(ctx: object, jobs: object) -> None:
        hung_threads.append(threading.current_thread())
        while True:
            time.sleep(0.01)

    try:
        with runtime.sessions.write() as session:
            job_id = queue.enqueue(session, "test.hangs_always", {}, clock=clock)
        assert job_id is not None
        worker = Worker(runtime, lane_threads={"default": 1})
        worker.start()
        try:
            wait_for(lambda: bool(worker._attempts), 10)
            clock.advance(timedelta(seconds=2))
            assert worker.stop_overrunning() == 1
        finally:
            worker.stop()
        # The stopped thread logs its JobTimeout on the way out: let it finish while the test's
        # log capture is still open.
        hung_threads[0].join(10)
        assert not hung_threads[0].is_alive()
    finally:
        unregister("test.hangs_always")
    row = job(runtime, job_id)
    assert row is not None
    assert row.status == "failed"
    assert gave_up
    assert gave_up[0].startswith("JobTimeout: ")


def test_a_worker_process_stops_a_blocked_handler_and_retries_it(
    runtime: Runtime, tmp_path: Path
) -> None:
    # The worker process uses the real clock: the kind's 3 s maximum run time passes for real.
    with runtime.sessions.write() as session:
        job_id = queue.enqueue(
            session, "test.hangs_once", {"name": "blocked", "blocking": True}, clock=SystemClock()
        )
    assert job_id is not None
    env = os.environ | {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_JOB_LEASE_SECONDS": "5",
        "HERALD_JOB_POLL_SECONDS": "0.2",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    script = (
        "import tests.jobs.handlers; from herald.cli.main import app;"
        " app(['worker', '--threads', '1', '--no-scheduler'])"
    )
    process = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT)
    try:
        wait_for(lambda: job(runtime, job_id) is None, 60)
        assert team_names(runtime) == ["blocked-2"]
        process.send_signal(signal.SIGTERM)
        # The retired thread is still asleep in its blocking call; it does not hold up the exit.
        assert process.wait(20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
