"""Deleting an item while a dated job that captured it has not committed yet (SQLite and
PostgreSQL): the deletion waits for the job, then takes the item out of the event the job
recorded, so no webhook delivery or replay sends a deleted item's title or URL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.content.deletion import ContentSelector, delete_content
from herald.db.models.monitor import MonitorResult
from herald.db.models.webhooks import WebhookEvent
from herald.monitors.dated_jobs import complete_runs, start_runs
from herald.runtime import Runtime
from herald.workspaces.service import CreatedKey
from tests.content.blocking import Background, held_open, wait_until_blocked
from tests.monitors.support import WordSearch
from tests.monitors.test_monitor_events import enable_webhooks


def test_an_item_deleted_while_its_capture_is_open_leaves_no_event_holding_it(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    word_search: WordSearch,
    make_monitor: Callable[..., dict[str, Any]],
    content: Callable[..., str],
) -> None:
    enable_webhooks(runtime, member_key.team_id)
    gone = content("Solar flare closes the observatory", datetime(2026, 11, 25, 1, tzinfo=UTC))
    kept = content("Solar panels for the town hall", datetime(2026, 11, 25, 2, tzinfo=UTC))
    monitor = make_monitor()
    task = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    assert task.status_code in (200, 201, 202), task.text
    [run_id] = [q["run_id"] for q in task.json()["queued"] if q["published_date"] == "2026-11-25"]
    with runtime.sessions.write() as session:
        [started] = start_runs(session, [run_id], clock=runtime.clock)
    hits = word_search.search_for(runtime, started)  # the job's search, outside any transaction
    assert {hit.content_id for hit in hits} == {gone, kept}

    def capture(session: Any) -> Any:
        return complete_runs(session, [(started, hits)], clock=runtime.clock)

    with held_open(runtime, capture) as job:
        deletion = Background(
            lambda: delete_content(
                runtime.sessions,
                ContentSelector(content_id=gone),
                actor="test",
                clock=runtime.clock,
            )
        )
        deletion.start()
        wait_until_blocked(runtime)
    [outcome] = job.result
    assert outcome.new_result_count == 2  # the job committed first, with both items
    assert deletion.outcome().deleted == 1

    with runtime.sessions.read() as session:
        bodies = list(session.scalars(select(WebhookEvent.body)))
        stored = session.scalar(select(func.count()).select_from(MonitorResult))
    assert bodies
    assert stored == 1
    assert any(kept in body for body in bodies)
    for body in bodies:
        assert gone not in body
        assert "Solar flare closes the observatory" not in body
