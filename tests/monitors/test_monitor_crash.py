"""A worker process killed with SIGKILL in the middle of a dated job loses nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.db.models.monitor import MonitorLedgerEntry, MonitorResult, MonitorRun
from herald.runtime import Runtime
from tests.monitors.process import SharedClock

ROOT = Path(__file__).resolve().parents[2]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def start_process(
    runtime: Runtime, role: str, clock: SharedClock, **env: str
) -> subprocess.Popen[bytes]:
    environment = os.environ | {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_JOB_LEASE_SECONDS": "5",
        "HERALD_JOB_POLL_SECONDS": "0.2",
        "HERALD_TEST_CLOCK": clock.env(),
        "PYTHONPATH": str(ROOT),
        **env,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.monitors.process", role], env=environment, cwd=ROOT
    )


def wait_for(predicate: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


@pytest.mark.slow
def test_sigkill_mid_dated_job_then_restart_completes_once(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: Callable[..., dict[str, Any]],
    content: Callable[..., str],
    drain: Callable[[], int],
    tmp_path: Path,
) -> None:
    for hour in range(3):
        content(f"Solar report {hour}", utc(2026, 11, 25, hour), enriched_at=utc(2026, 11, 25, 5))
    monitor = make_monitor()
    mid = monitor["id"]
    client.post(f"/v1/monitors/{mid}/run", headers=auth)
    drain()  # the store holds the first three

    clock.advance(timedelta(minutes=30))
    content("Solar late report", utc(2026, 11, 25, 9), enriched_at=utc(2026, 11, 25, 12, 20))
    task = client.post(
        f"/v1/monitors/{mid}/backfills", json={"dates": ["2026-11-25"]}, headers=auth
    ).json()
    run_id = task["queued"][0]["run_id"]

    shared = SharedClock(clock.now(), time.time(), 1.0)
    marker = tmp_path / "stalled"
    first = start_process(runtime, "worker", shared, HERALD_TEST_STALL_MARKER=str(marker))
    try:
        wait_for(marker.exists, 60)  # the job started and is searching
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()

    with runtime.sessions.read() as session:
        run = session.get(MonitorRun, run_id)
        assert run is not None
        assert (run.status, run.attempts) == ("running", 1)
        [job] = session.scalars(select(Job).where(Job.kind == "monitors.dated_job")).all()
        assert job.status == "running"  # leased to the dead worker
        ledger = session.get(MonitorLedgerEntry, (mid, utc(2026, 11, 25).date()))
        assert ledger is not None
        assert (ledger.status, ledger.run_id) == ("running", run_id)
        assert session.scalar(select(func.count()).select_from(MonitorResult)) == 3

    second = start_process(runtime, "worker", shared, HERALD_TEST_STALL_MARKER=str(marker))
    try:

        def finished() -> bool:
            with runtime.sessions.read() as session:
                return session.scalars(select(Job)).first() is None

        wait_for(finished, 90)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(30)

    with runtime.sessions.read() as session:
        run = session.get(MonitorRun, run_id)
        assert run is not None
        assert (run.status, run.attempts) == ("succeeded", 2)
        assert (run.result_count, run.new_result_count) == (4, 1)
        rows = session.execute(
            select(MonitorResult.content_id).where(MonitorResult.monitor_id == mid)
        ).all()
        assert len(rows) == 4
        assert len({r.content_id for r in rows}) == 4
        ledger = session.get(MonitorLedgerEntry, (mid, utc(2026, 11, 25).date()))
        assert ledger is not None
        assert (ledger.status, ledger.run_id, ledger.result_count) == ("succeeded", run_id, 4)
        assert ledger.latest_indexed_content_at == utc(2026, 11, 25, 12, 20)
        assert ledger.error_message is None
    view = client.get(f"/v1/monitors/{mid}/backfills/{task['task_id']}", headers=auth).json()
    assert view["status"] == "succeeded"
    assert view["summary"]["succeeded"] == 1
