"""A worker process killed with SIGKILL mid-job: the job runs again and its effect happens once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest
from sqlalchemy import select

from herald.db.models.job import Job
from herald.db.models.workspace import Team
from herald.jobs import queue
from herald.runtime import Runtime
from tests.jobs import handlers  # noqa: F401  (registers test.create_team here, where it is enqueued)

ROOT = Path(__file__).resolve().parents[2]
WORKER = (
    "import sys, tests.jobs.handlers; from herald.cli.main import app;"
    " app(['worker', '--threads', '1', *sys.argv[1:]])"
)


def start_worker(
    runtime: Runtime, marker: Path, *args: str, out: IO[bytes] | None = None
) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_JOB_LEASE_SECONDS": "5",
        "HERALD_JOB_POLL_SECONDS": "0.2",
        "HERALD_TEST_MARKER": str(marker),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, *args],
        env=env,
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
    )


def wait_for(predicate: object, timeout: float) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def stop_outside_a_write(pid: int, runtime: Runtime) -> None:
    """SIGSTOP the process at a moment it holds no SQLite write lock.

    A process paused inside a write transaction (a lease renewal, say) holds SQLite's one write
    lock, and every other writer waits until it resumes: SQLite's own limit, not what these
    tests are about. So on SQLite the stop is retried until the database takes a write."""
    for _ in range(50):
        os.kill(pid, signal.SIGSTOP)
        if runtime.sessions.engine.dialect.name != "sqlite":
            return
        database = str(runtime.sessions.engine.url.database)
        probe = sqlite3.connect(database, timeout=1, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.rollback()
            return
        except sqlite3.OperationalError:
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.05)
        finally:
            probe.close()
    raise AssertionError("the worker always held the write lock")


@pytest.mark.slow
def test_sigkill_mid_job_then_restart_completes_once(runtime: Runtime, tmp_path: Path) -> None:
    # The worker subprocesses use the real clock; the test's runtime only enqueues and reads.
    from herald.core.clock import SystemClock

    marker = tmp_path / "started"
    with runtime.sessions.write() as session:
        queue.enqueue(
            session, "test.create_team", {"name": "survivor", "slow": True}, clock=SystemClock()
        )
    first = start_worker(runtime, marker)
    try:
        wait_for(marker.exists, 60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    with runtime.sessions.read() as session:
        [job] = session.scalars(select(Job).where(Job.kind == "test.create_team")).all()
        assert job.status == "running"  # leased to the dead worker
        assert session.scalars(select(Team)).all() == []

    second = start_worker(runtime, marker)
    try:

        def done() -> bool:
            with runtime.sessions.read() as session:
                return session.scalars(select(Job)).first() is None

        wait_for(done, 60)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(30)
    with runtime.sessions.read() as session:
        assert [t.name for t in session.scalars(select(Team))] == ["survivor"]


@pytest.mark.slow
def test_a_worker_stopped_past_its_lease_cannot_commit_when_resumed(
    runtime: Runtime, tmp_path: Path
) -> None:
    """SIGSTOP mid-job (a paused VM, a swapped-out process) until the lease expires: another
    worker runs the job; the first, resumed, finishes its handler but its commit is refused."""
    from herald.core.clock import SystemClock

    marker = tmp_path / "started"
    with runtime.sessions.write() as session:
        queue.enqueue(
            session,
            "test.create_team",
            {"name": "once", "slow": True, "sleep": 8},
            clock=SystemClock(),
        )
    log = tmp_path / "first.log"
    with log.open("wb") as out:
        # No scheduler: on SQLite a process stopped inside a write transaction (a periodic
        # task's) would hold the one write lock, and every other writer would wait for it.
        first = start_worker(runtime, marker, "--no-scheduler", out=out)
    second = None
    try:
        try:
            wait_for(marker.exists, 90)
        except AssertionError:  # say what the worker did instead
            raise AssertionError(log.read_bytes()[-4000:].decode(errors="replace")) from None
        stop_outside_a_write(first.pid, runtime)  # no heartbeat either: the lease runs out
        time.sleep(6)  # past the 5 s lease
        second = start_worker(runtime, marker)

        def one_team() -> bool:
            with runtime.sessions.read() as session:
                return len(session.scalars(select(Team)).all()) == 1

        wait_for(one_team, 60)
        os.kill(first.pid, signal.SIGCONT)
        # Its handler returns; its commit is refused (the job is no longer leased to it, or the
        # row it writes exists already) and its failure is not recorded either.
        wait_for(
            lambda: b"job lease lost" in log.read_bytes() or b"job failed" in log.read_bytes(), 60
        )
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                os.kill(worker.pid, signal.SIGCONT)
                worker.send_signal(signal.SIGTERM)
                worker.wait(30)
    with runtime.sessions.read() as session:
        assert [t.name for t in session.scalars(select(Team))] == ["once"]
        assert session.scalars(select(Job)).all() == []
