"""A worker process killed with SIGKILL mid-job: the job runs again and its effect happens once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from herald.db.models.job import Job
from herald.db.models.workspace import Team
from herald.jobs import queue
from herald.runtime import Runtime
from tests.jobs import handlers  # noqa: F401  (registers test.create_team here, where it is enqueued)

ROOT = Path(__file__).resolve().parents[2]
WORKER = (
    "import tests.jobs.handlers; from herald.cli.main import app; app(['worker', '--threads', '1'])"
)


def start_worker(runtime: Runtime, marker: Path) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_JOB_LEASE_SECONDS": "5",
        "HERALD_JOB_POLL_SECONDS": "0.2",
        "HERALD_TEST_MARKER": str(marker),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen([sys.executable, "-c", WORKER], env=env, cwd=ROOT)


def wait_for(predicate: object, timeout: float) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


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
