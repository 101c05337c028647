"""A monitor disabled while one of its dated jobs runs (SQLite and PostgreSQL): that job finishes
and stores what it found; the children not started yet end ``skipped``; the task succeeds."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from herald.monitors.dated_jobs import complete_runs, start_runs
from herald.runtime import Runtime
from tests.monitors.support import WordSearch


def test_a_job_running_when_its_monitor_is_disabled_finishes_and_the_rest_are_skipped(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    word_search: WordSearch,
    make_monitor: Callable[..., dict[str, Any]],
    content: Callable[..., str],
    drain: Callable[[], int],
) -> None:
    found = content("Solar flare", datetime(2026, 11, 25, 1, tzinfo=UTC))
    monitor = make_monitor()["id"]
    task = client.post(f"/v1/monitors/{monitor}/run", headers=auth).json()
    today = [q["run_id"] for q in task["queued"] if q["published_date"] == "2026-11-25"]
    with runtime.sessions.write() as session:
        started = start_runs(session, today, clock=runtime.clock)
    hits = [word_search.search_for(runtime, run) for run in started]
    assert client.delete(f"/v1/monitors/{monitor}", headers=auth).status_code == 200
    with runtime.sessions.write() as session:
        [outcome] = complete_runs(
            session, list(zip(started, hits, strict=True)), clock=runtime.clock
        )
    assert (outcome.result_count, outcome.new_result_count) == (1, 1)
    drain()  # the other three reach a worker after the monitor was disabled

    view = client.get(f"/v1/monitors/{monitor}/backfills/{task['task_id']}", headers=auth).json()
    assert view["status"] == "succeeded"
    assert view["summary"] == {
        "requested": 4,
        "queued": 0,
        "running": 0,
        "succeeded": 1,
        "failed": 0,
        "skipped": 3,
    }
    ledger = client.get(f"/v1/monitors/{monitor}/backfills", headers=auth).json()["backfills"]
    assert [(e["date"], e["status"]) for e in ledger] == [
        ("2026-11-25", "succeeded"),
        ("2026-11-24", "skipped"),
        ("2026-11-23", "skipped"),
        ("2026-11-22", "skipped"),
    ]
    results = client.get(f"/v1/monitors/{monitor}/results", headers=auth).json()["results"]
    assert [r["content_item"]["id"] for r in results] == [found]
