"""PostgreSQL: 4 worker processes and 2 scheduler processes over 200 monitors.

Every due slot of every monitor runs exactly once (no slot missed, none twice), every dated job
runs once and succeeds, and the stores hold exactly what the searches match. The processes share
an accelerated clock (one hour of schedule in 10 seconds), the only fake.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.db.models.monitor import Monitor, MonitorResult, MonitorRun
from herald.monitors.schedule import next_run_at
from herald.monitors.service import create_monitor, schedule_of
from herald.runtime import Runtime
from herald.workspaces.service import create_key
from tests.monitors.process import SharedClock
from tests.monitors.support import add_content
from tests.monitors.test_monitor_crash import start_process, wait_for

MONITORS = 200
QUERIES = ("solar", "wind", "grid", "storage")
ZONES = ("UTC", "Asia/Kathmandu", "Asia/Kolkata", "America/New_York", "Australia/Adelaide")
SCALE = 360.0  # one hour of schedule in 10 s
SCHEDULE_FOR = timedelta(hours=1, minutes=10)  # of schedule time: 1 or 2 slots per monitor


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_every_due_slot_runs_exactly_once(
    runtime: Runtime, clock: FrozenClock, tmp_path: Path
) -> None:
    start = clock.now()
    matches: dict[str, int] = defaultdict(int)
    with runtime.sessions.write() as session:
        team_id = create_key(session, workspace="load", role="member", clock=clock).team_id
        for day in range(22, 26):
            for i, query in enumerate(QUERIES):
                for n in range(i + 1):
                    add_content(
                        session,
                        title=f"{query} item {n}",
                        published_at=datetime(2026, 11, day, 3 + n, tzinfo=UTC),
                    )
                    matches[query] += 1
        for i in range(MONITORS):
            create_monitor(
                session,
                team_id=team_id,
                name=f"m{i}",
                search={"query": QUERIES[i % len(QUERIES)]},
                schedule={"minute": (i * 7) % 60, "timezone": ZONES[i % len(ZONES)]},
                description=None,
                status="active",
                clock=clock,
            )

    clock_file = tmp_path / "clock"
    env = {"HERALD_JOB_LEASE_SECONDS": str(3600 * 24), "HERALD_TEST_CLOCK_FILE": str(clock_file)}
    unused = SharedClock(start, 0.0, 1.0)  # the processes read the clock file instead
    workers = [start_process(runtime, "worker", unused, **env) for _ in range(4)]
    schedulers = [start_process(runtime, "scheduler", unused, **env) for _ in range(2)]
    processes: list[subprocess.Popen[bytes]] = workers + schedulers
    try:
        wait_for(lambda: len(list(tmp_path.glob("ready-*"))) == len(processes), 180)
        # Written whole, then renamed: a process polling for the file never reads it half written.
        partial = clock_file.with_suffix(".partial")
        partial.write_text(SharedClock(start, time.time(), SCALE).env())
        partial.replace(clock_file)
        time.sleep(SCHEDULE_FOR.total_seconds() / SCALE)
        for process in schedulers:
            process.send_signal(signal.SIGTERM)
        for process in schedulers:
            assert process.wait(60) == 0

        def drained() -> bool:
            with runtime.sessions.read() as session:
                pending = session.scalar(
                    select(func.count()).select_from(Job).where(Job.kind == "monitors.dated_job")
                )
            return pending == 0

        wait_for(drained, 240)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
    assert all(p.returncode == 0 for p in workers)

    with runtime.sessions.read() as session:
        monitors = list(session.scalars(select(Monitor)))
        runs = list(session.scalars(select(MonitorRun)))
        stored = dict(
            session.execute(
                select(MonitorResult.monitor_id, func.count()).group_by(MonitorResult.monitor_id)
            ).all()
        )
    slots: dict[str, list[datetime]] = defaultdict(list)
    for run in runs:
        if run.kind == "scheduled":
            assert run.slot_at is not None
            slots[run.monitor_id].append(run.slot_at)
    total_slots = 0
    for monitor in monitors:
        schedule = schedule_of(monitor)
        assert monitor.next_run_at is not None
        expected = []
        slot = next_run_at(schedule, monitor.created_at)
        while slot < monitor.next_run_at:
            expected.append(slot)
            slot = next_run_at(schedule, slot)
        assert sorted(slots[monitor.id]) == expected, monitor.id  # each slot once, none missed
        total_slots += len(expected)
        query = monitor.search["query"]
        assert stored.get(monitor.id, 0) == matches[query]
    assert total_slots >= MONITORS
    dated = [run for run in runs if run.kind == "dated"]
    assert dated
    assert {run.status for run in dated} == {"succeeded"}
    assert {run.attempts for run in dated} == {1}  # no job ran twice
    assert {run.status for run in runs if run.kind == "scheduled"} == {"succeeded"}
