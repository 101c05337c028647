"""One item found by two dated jobs of the same monitor in one batch (SQLite and PostgreSQL).

The jobs of a batch store their results in one transaction. An item re-dated between the two
searches (or still under its old date in the search index) is found by the job of its old date
and by the job of its new one: it is stored once, and counted as new and announced by the first
job only (both used to count it new and announce it, each in its own event).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.monitor import MonitorResult
from herald.monitors.dated_jobs import complete_runs, start_runs
from herald.runtime import Runtime
from herald.search.types import SearchHit
from herald.workspaces.service import CreatedKey
from tests.monitors.test_monitor_events import enable_webhooks, events


def test_an_item_both_jobs_of_a_batch_found_is_stored_counted_and_announced_once(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
    content: Callable[..., str],
) -> None:
    enable_webhooks(runtime, member_key.team_id)
    moved = content("Solar plant opens a day early", datetime(2026, 11, 20, 9, tzinfo=UTC))
    other = content("Solar farm on the hill", datetime(2026, 11, 21, 9, tzinfo=UTC))
    monitor = make_monitor()
    task = client.post(
        f"/v1/monitors/{monitor['id']}/backfills",
        json={"dates": ["2026-11-21", "2026-11-20"]},
        headers=auth,
    ).json()
    run_ids = [q["run_id"] for q in task["queued"]]
    with runtime.sessions.write() as session:
        started = start_runs(session, run_ids, clock=runtime.clock)
    by_date = {s.published_date.isoformat(): s for s in started}
    searched = [
        (by_date["2026-11-21"], [SearchHit(moved, 0.9), SearchHit(other, 0.8)]),
        (by_date["2026-11-20"], [SearchHit(moved, 0.7)]),
    ]
    with runtime.sessions.write() as session:
        outcomes = complete_runs(session, searched, clock=runtime.clock)

    counts = {o.run_id: (o.result_count, o.new_result_count) for o in outcomes}
    # the batch stores in (monitor, date) order: the earlier date's job stores it first
    assert counts == {by_date["2026-11-20"].run_id: (1, 1), by_date["2026-11-21"].run_id: (2, 1)}
    with runtime.sessions.read() as session:
        stored = session.scalars(
            select(MonitorResult.content_id).where(MonitorResult.monitor_id == monitor["id"])
        ).all()
    assert sorted(stored) == sorted([moved, other])
    announced = [
        item["id"]
        for event in events(runtime, "monitor.results.added")
        for item in event["data"]["items"]
    ]
    assert sorted(announced) == sorted([moved, other])
    runs = client.get(f"/v1/monitors/{monitor['id']}/runs", headers=auth).json()["runs"]
    assert {r["status"] for r in runs} == {"succeeded"}
