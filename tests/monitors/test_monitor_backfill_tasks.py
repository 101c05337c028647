"""Backfill tasks: the parent task's states, failures, a disabled monitor's jobs, the ledger of
dates and task ids per monitor."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.db.models.monitor import MonitorRun
from herald.jobs.worker import Worker
from herald.monitors import dated_jobs
from herald.runtime import Runtime
from tests.monitors.backfill_support import (
    Content,
    Drain,
    MonitorFactory,
    backfill,
    utc,
)
from tests.monitors.support import WordSearch


def test_parent_task_status_transitions(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    word_search: WordSearch,
) -> None:
    monitor = make_monitor()
    task = backfill(client, auth, monitor["id"], ["2026-11-02", "2026-11-01"]).json()
    path = f"/v1/monitors/{monitor['id']}/backfills/{task['task_id']}"

    def view() -> dict[str, Any]:
        body = client.get(path, headers=auth).json()
        return dict(body)

    queued = view()
    assert set(queued) >= {"task_id", "status", "summary", "tasks", "meta"}
    assert queued["status"] == "queued"
    assert queued["summary"] == {
        "requested": 2,
        "queued": 2,
        "running": 0,
        "succeeded": 0,
        "failed": 0,
        "skipped": 0,
    }
    assert {t["status"] for t in queued["tasks"]} == {"queued"}
    assert set(queued["tasks"][0]) >= {
        "published_date",
        "run_id",
        "task_id",
        "status",
        "latest_indexed_content",
    }
    first, second = (q["run_id"] for q in task["queued"])

    clock.advance(timedelta(seconds=5))
    with runtime.sessions.write() as session:
        [started] = dated_jobs.start_runs(session, [first], clock=clock)
    running = view()
    assert running["status"] == "running"
    assert running["started_at"] == "2026-11-25T12:00:05Z"
    assert (running["summary"]["running"], running["summary"]["queued"]) == (1, 1)

    with runtime.sessions.write() as session:
        dated_jobs.complete_run(session, started, [], clock=clock)
    one_done = view()
    assert one_done["status"] == "running"  # a child is still queued
    assert (one_done["summary"]["succeeded"], one_done["summary"]["queued"]) == (1, 1)

    with runtime.sessions.write() as session:
        [started2] = dated_jobs.start_runs(session, [second], clock=clock)
        dated_jobs.complete_run(session, started2, [], clock=clock)
    done = view()
    assert done["status"] == "succeeded"
    assert done["finished_at"] == "2026-11-25T12:00:05Z"
    assert done["summary"]["succeeded"] == 2


def test_a_job_that_fails_for_good_fails_its_parent_and_ledger_entry(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    from tests.monitors.support import use_word_search

    use_word_search(runtime, WordSearch(fail_dates=frozenset({date(2026, 11, 2)})))
    monitor = make_monitor()
    task = backfill(client, auth, monitor["id"], ["2026-11-01", "2026-11-02"]).json()
    worker = Worker(runtime)
    worker.drain()
    path = f"/v1/monitors/{monitor['id']}/backfills/{task['task_id']}"
    retrying = client.get(path, headers=auth).json()
    assert retrying["status"] == "running"  # the failed child will be retried
    for _ in range(6):
        clock.advance(timedelta(hours=1))
        worker.drain()
    failed = client.get(path, headers=auth).json()
    assert failed["status"] == "failed"
    assert (failed["summary"]["failed"], failed["summary"]["succeeded"]) == (1, 1)
    bad = next(t for t in failed["tasks"] if t["published_date"] == "2026-11-02")
    assert bad["status"] == "failed"
    assert "search backend unavailable" in bad["error_message"]
    ledger = client.get(f"/v1/monitors/{monitor['id']}/backfills", headers=auth).json()
    entries = {e["date"]: e for e in ledger["backfills"]}
    assert entries["2026-11-02"]["status"] == "failed"
    assert "search backend unavailable" in entries["2026-11-02"]["error_message"]
    assert entries["2026-11-01"]["status"] == "succeeded"
    assert ledger["summary"] == {
        "total": 2,
        "running": 0,
        "succeeded": 1,
        "failed": 1,
        "skipped": 0,
    }
    with runtime.sessions.read() as session:
        run = session.get(MonitorRun, bad["run_id"])
    assert run is not None
    assert run.attempts == 5


def test_jobs_of_a_disabled_monitor_end_skipped(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: MonitorFactory,
    drain: Drain,
) -> None:
    monitor = make_monitor()
    task = backfill(client, auth, monitor["id"], ["2026-11-01"]).json()
    client.delete(f"/v1/monitors/{monitor['id']}", headers=auth)
    drain()
    view = client.get(
        f"/v1/monitors/{monitor['id']}/backfills/{task['task_id']}", headers=auth
    ).json()
    assert view["status"] == "succeeded"
    assert view["tasks"][0]["status"] == "skipped"
    assert view["summary"]["skipped"] == 1
    ledger = client.get(
        f"/v1/monitors/{monitor['id']}/backfills?status=skipped", headers=auth
    ).json()
    assert [e["date"] for e in ledger["backfills"]] == ["2026-11-01"]


def test_ledger_one_entry_per_date_latest_job_of_any_origin(
    client: TestClient,
    auth: dict[str, str],
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    content("Solar a", utc(2026, 11, 24, 5), enriched_at=utc(2026, 11, 24, 6))
    content("Solar b", utc(2026, 11, 24, 7), enriched_at=utc(2026, 11, 24, 9))
    monitor = make_monitor()
    mid = monitor["id"]
    client.post(f"/v1/monitors/{mid}/run", headers=auth)
    drain()
    clock.advance(timedelta(minutes=30))
    back = backfill(client, auth, mid, ["2026-11-24", "2026-10-31"]).json()
    body = client.get(f"/v1/monitors/{mid}/backfills", headers=auth).json()
    assert set(body) == {
        "monitor_id",
        "backfills",
        "summary",
        "limit",
        "offset",
        "next_offset",
        "has_more",
        "meta",
    }
    assert [e["date"] for e in body["backfills"]] == [
        "2026-11-25",
        "2026-11-24",
        "2026-11-23",
        "2026-11-22",
        "2026-10-31",
    ]
    entry = body["backfills"][1]
    assert entry["status"] == "running"  # the queued backfill job is now the latest
    assert entry["run_id"] == back["queued"][0]["run_id"]
    assert entry["origin"] == "backfill"
    assert entry["backfill_run_at"] == "2026-11-25T12:30:00Z"
    assert entry["backfill_run_date"] == "2026-11-25"
    assert entry["latest_indexed_content_at"] == "2026-11-24T09:00:00Z"  # from the store
    assert entry["result_count"] == 2
    assert body["summary"] == {"total": 5, "running": 2, "succeeded": 3, "failed": 0, "skipped": 0}
    drain()
    after = client.get(f"/v1/monitors/{mid}/backfills", headers=auth).json()
    assert after["backfills"][1]["status"] == "succeeded"
    assert after["summary"]["succeeded"] == 5
    filtered = client.get(
        f"/v1/monitors/{mid}/backfills?start_date=2026-11-23&end_date=2026-11-24&limit=1",
        headers=auth,
    ).json()
    assert [e["date"] for e in filtered["backfills"]] == ["2026-11-24"]
    assert (filtered["has_more"], filtered["next_offset"]) == (True, 1)
    assert filtered["summary"]["total"] == 2
    for bad in ("limit=201", "status=done", "start_date=2026-11-24T00:00:00Z", "offset=-1"):
        response = client.get(f"/v1/monitors/{mid}/backfills?{bad}", headers=auth)
        assert response.status_code == 400, bad
    backwards = client.get(
        f"/v1/monitors/{mid}/backfills?start_date=2026-11-24&end_date=2026-11-23", headers=auth
    )
    assert backwards.json()["error"] == "date_window_too_long"
    assert client.get(f"/v1/monitors/{mid}/backfills?limit=200", headers=auth).status_code == 200


def test_task_ids_are_per_monitor(
    client: TestClient, auth: dict[str, str], make_monitor: MonitorFactory
) -> None:
    one, two = make_monitor("a"), make_monitor("b")
    task = backfill(client, auth, one["id"], ["2026-11-01"]).json()
    dated = task["queued"][0]["run_id"]
    assert (
        client.get(
            f"/v1/monitors/{two['id']}/backfills/{task['task_id']}", headers=auth
        ).status_code
        == 404
    )
    assert (
        client.get(f"/v1/monitors/{one['id']}/backfills/{dated}", headers=auth).status_code == 404
    )
    assert (
        client.get(
            f"/v1/monitors/{one['id']}/backfills/{task['task_id']}", headers=auth
        ).status_code
        == 200
    )
