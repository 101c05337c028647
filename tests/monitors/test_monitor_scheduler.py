"""The scheduler in the database: due slots run exactly once, outages run once, DST in place."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.monitor import MonitorRun
from herald.jobs.registry import periodic_tasks
from herald.monitors.tasks import schedule_monitors
from herald.runtime import Runtime

MonitorFactory = Callable[..., dict[str, Any]]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def scheduled_runs(runtime: Runtime, monitor_id: str) -> list[MonitorRun]:
    with runtime.sessions.read() as session:
        return list(
            session.scalars(
                select(MonitorRun)
                .where(MonitorRun.monitor_id == monitor_id, MonitorRun.kind == "scheduled")
                .order_by(MonitorRun.slot_at)
            )
        )


def test_the_scheduler_is_registered_as_periodic_work() -> None:
    assert "monitors.schedule" in {task.name for task in periodic_tasks()}


def test_a_due_slot_runs_once_with_its_four_dated_jobs(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    monitor = make_monitor(schedule={"minute": 15})
    assert monitor["next_run_at"] == "2026-11-25T12:15:00Z"
    assert schedule_monitors(runtime) == 0  # not due yet
    clock.set(utc(2026, 11, 25, 12, 15, 2))
    assert schedule_monitors(runtime) == 1
    assert schedule_monitors(runtime) == 0  # the same slot is never claimed twice
    [run] = scheduled_runs(runtime, monitor["id"])
    assert run.slot_at == utc(2026, 11, 25, 12, 15)
    assert run.summary is not None
    assert run.summary["queued"] == 4
    after = client.get(f"/v1/monitors/{monitor['id']}", headers=auth).json()
    assert after["next_run_at"] == "2026-11-25T13:15:00Z"
    runs = client.get(f"/v1/monitors/{monitor['id']}/runs", headers=auth).json()["runs"]
    assert [r["kind"] for r in runs] == ["scheduled"] + ["dated"] * 4
    task = client.get(f"/v1/monitors/{monitor['id']}/backfills/{run.id}", headers=auth).json()
    assert task["kind"] == "scheduled"
    assert len(task["tasks"]) == 4


def test_an_outage_runs_one_slot_not_one_per_missed_hour(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    monitor = make_monitor(schedule={"minute": 15})
    clock.set(utc(2026, 11, 26, 3, 40))  # down for 15 hours
    assert schedule_monitors(runtime) == 1
    [run] = scheduled_runs(runtime, monitor["id"])
    assert run.slot_at == utc(2026, 11, 26, 3, 15)  # the latest missed slot
    after = client.get(f"/v1/monitors/{monitor['id']}", headers=auth).json()
    assert after["next_run_at"] == "2026-11-26T04:15:00Z"
    # the run covers the new UTC day and the three before it
    dates = sorted(
        r["published_date"]
        for r in client.get(f"/v1/monitors/{monitor['id']}/runs", headers=auth).json()["runs"]
        if r["kind"] == "dated"
    )
    assert dates == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"]


def test_hourly_slots_across_a_day_each_run_once(
    runtime: Runtime, clock: FrozenClock, make_monitor: MonitorFactory, drain: Callable[[], int]
) -> None:
    monitor = make_monitor(schedule={"minute": 0, "timezone": "Asia/Kathmandu"})
    for _ in range(3 * 24):  # every 20 minutes for a day
        clock.advance(timedelta(minutes=20))
        schedule_monitors(runtime)
        drain()
    slots = [run.slot_at for run in scheduled_runs(runtime, monitor["id"])]
    assert len(slots) == 24
    assert len(set(slots)) == 24
    assert all(slot is not None and slot.minute == 15 for slot in slots)  # :00 at +05:45


def test_daily_schedule_over_the_new_york_fall_back(
    runtime: Runtime, clock: FrozenClock, make_monitor: MonitorFactory
) -> None:
    clock.set(utc(2026, 10, 30, 12))
    monitor = make_monitor(
        schedule={"frequency": "daily", "timezone": "America/New_York", "run_time": "01:30"}
    )
    for _ in range(4 * 24 * 4):  # every 15 minutes for four days
        clock.advance(timedelta(minutes=15))
        schedule_monitors(runtime)
    slots = [run.slot_at for run in scheduled_runs(runtime, monitor["id"])]
    assert slots == [
        utc(2026, 10, 31, 5, 30),  # EDT
        utc(2026, 11, 1, 5, 30),  # first 01:30 of the repeated hour, once
        utc(2026, 11, 2, 6, 30),  # EST
        utc(2026, 11, 3, 6, 30),
    ]


def test_disabled_monitors_are_never_scheduled(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    monitor = make_monitor(schedule={"minute": 15})
    client.delete(f"/v1/monitors/{monitor['id']}", headers=auth)
    clock.advance(timedelta(hours=5))
    assert schedule_monitors(runtime) == 0
    assert scheduled_runs(runtime, monitor["id"]) == []


def test_a_schedule_change_moves_the_next_slot(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    monitor = make_monitor(schedule={"minute": 15})
    client.patch(f"/v1/monitors/{monitor['id']}", json={"schedule": {"minute": 45}}, headers=auth)
    clock.set(utc(2026, 11, 25, 12, 20))
    assert schedule_monitors(runtime) == 0
    clock.set(utc(2026, 11, 25, 12, 45))
    assert schedule_monitors(runtime) == 1
    assert [r.slot_at for r in scheduled_runs(runtime, monitor["id"])] == [
        utc(2026, 11, 25, 12, 45)
    ]


def test_a_schedule_change_keeps_a_slot_that_came_due_before_it(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    """The 12:15 slot came due and no scheduler had claimed it yet when the schedule changed:
    it still runs once (it was dropped: next_run_at jumped to the new schedule's 12:45)."""
    monitor = make_monitor(schedule={"minute": 15})
    clock.set(utc(2026, 11, 25, 12, 16))
    patched = client.patch(
        f"/v1/monitors/{monitor['id']}", json={"schedule": {"minute": 45}}, headers=auth
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["next_run_at"] == "2026-11-25T12:45:00Z"
    assert [r.slot_at for r in scheduled_runs(runtime, monitor["id"])] == [
        utc(2026, 11, 25, 12, 15)
    ]
    assert schedule_monitors(runtime) == 0  # never twice
    clock.set(utc(2026, 11, 25, 12, 45))
    assert schedule_monitors(runtime) == 1
    assert [r.slot_at for r in scheduled_runs(runtime, monitor["id"])] == [
        utc(2026, 11, 25, 12, 15),
        utc(2026, 11, 25, 12, 45),
    ]
    # A schedule change before the slot is due queues nothing.
    client.patch(f"/v1/monitors/{monitor['id']}", json={"schedule": {"minute": 50}}, headers=auth)
    assert len(scheduled_runs(runtime, monitor["id"])) == 2


def test_concurrent_schedulers_claim_each_slot_once(
    runtime: Runtime, clock: FrozenClock, make_monitor: MonitorFactory
) -> None:
    monitors = [make_monitor(f"q{i}", schedule={"minute": 30}) for i in range(20)]
    clock.set(utc(2026, 11, 25, 12, 30, 1))
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def scheduler() -> None:
        try:
            barrier.wait()
            schedule_monitors(runtime)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=scheduler) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    for monitor in monitors:
        assert len(scheduled_runs(runtime, monitor["id"])) == 1
