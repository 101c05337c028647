"""Monitor events are recorded in the same transaction as the work they report."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.webhooks import WebhookEvent
from herald.jobs.worker import Worker
from herald.monitors import dated_jobs
from herald.runtime import Runtime
from herald.webhooks.service import save_target
from herald.workspaces.service import CreatedKey
from tests.monitors.support import WordSearch, use_word_search

MonitorFactory = Callable[..., dict[str, Any]]
Content = Callable[..., str]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def enable_webhooks(runtime: Runtime, team_id: str) -> None:
    # A loopback target: deliveries are refused by the target rules, never sent anywhere.
    with runtime.sessions.write() as session:
        save_target(
            session, team_id, url="https://127.0.0.1:9/hook", enabled=True, clock=runtime.clock
        )


def events(runtime: Runtime, event_type: str | None = None) -> list[dict[str, Any]]:
    with runtime.sessions.read() as session:
        query = select(WebhookEvent).order_by(WebhookEvent.created_at)
        if event_type is not None:
            query = query.where(WebhookEvent.event_type == event_type)
        return [json.loads(row.body) for row in session.scalars(query)]


def test_results_added_and_task_completed(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Callable[[], int],
) -> None:
    enable_webhooks(runtime, member_key.team_id)
    for minute in range(25):
        content(f"Solar story {minute}", utc(2026, 11, 25, 1, minute))
    monitor = make_monitor()
    task = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth).json()
    drain()
    [added] = events(runtime, "monitor.results.added")
    assert added["team_id"] == member_key.team_id
    assert added["id"].startswith("evt_")
    data = added["data"]
    assert data["monitor_id"] == monitor["id"]
    assert data["task_id"] == task["task_id"]
    assert data["run_id"] == task["queued"][0]["run_id"]
    assert data["published_date"] == "2026-11-25"
    assert (data["new_result_count"], data["result_count"]) == (25, 25)
    assert len(data["items"]) == 20  # at most 20 items
    assert set(data["items"][0]) == {"id", "title", "url", "published_date", "source"}
    assert data["items"][0]["source"] == {"name": "Example", "domain": "example.com"}
    [completed] = events(runtime, "monitor.backfill.completed")
    assert completed["data"]["task_id"] == task["task_id"]
    assert completed["data"]["status"] == "succeeded"
    assert completed["data"]["summary"]["succeeded"] == 4

    # nothing new: no results event; a scheduled run sends no completion event
    clock.advance(timedelta(hours=1))
    from herald.monitors.tasks import schedule_monitors

    schedule_monitors(runtime)
    drain()
    assert len(events(runtime, "monitor.results.added")) == 1
    assert len(events(runtime, "monitor.backfill.completed")) == 1


def test_no_events_without_an_enabled_target(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Callable[[], int],
) -> None:
    content("Solar story", utc(2026, 11, 25, 1))
    monitor = make_monitor()
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    drain()
    assert events(runtime) == []


def test_a_backfill_that_queues_nothing_completes_at_once(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    make_monitor: MonitorFactory,
    word_search: WordSearch,
) -> None:
    enable_webhooks(runtime, member_key.team_id)
    monitor = make_monitor()
    client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-11-01"]}, headers=auth
    )
    task = client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-11-01"]}, headers=auth
    ).json()
    assert task["status"] == "succeeded"
    completed = events(runtime, "monitor.backfill.completed")
    assert [e["data"]["task_id"] for e in completed] == [task["task_id"]]
    assert completed[0]["data"]["summary"]["skipped"] == 1


def test_a_failure_for_good_is_an_event(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
) -> None:
    use_word_search(runtime, WordSearch(fail_dates=frozenset({date(2026, 11, 3)})))
    enable_webhooks(runtime, member_key.team_id)
    monitor = make_monitor()
    task = client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-11-03"]}, headers=auth
    ).json()
    worker = Worker(runtime)
    for _ in range(6):
        worker.drain()
        clock.advance(timedelta(hours=1))
    [failed] = events(runtime, "monitor.run.failed")
    assert failed["data"]["run_id"] == task["queued"][0]["run_id"]
    assert failed["data"]["published_date"] == "2026-11-03"
    assert failed["data"]["attempts"] == 5
    assert "search backend unavailable" in failed["data"]["error_message"]
    [completed] = events(runtime, "monitor.backfill.completed")
    assert completed["data"]["status"] == "failed"


def test_events_roll_back_with_the_work(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    word_search: WordSearch,
) -> None:
    enable_webhooks(runtime, member_key.team_id)
    content("Solar story", utc(2026, 11, 25, 1))
    monitor = make_monitor()
    task = client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-11-25"]}, headers=auth
    ).json()
    run_id = task["queued"][0]["run_id"]
    with runtime.sessions.write() as session:
        [started] = dated_jobs.start_runs(session, [run_id], clock=clock)
    hits = word_search.search_for(runtime, started)
    try:
        with runtime.sessions.write() as session:
            dated_jobs.complete_run(session, started, hits, clock=clock)
            assert len(events(runtime)) == 0  # not visible before commit
            raise RuntimeError("crash before commit")
    except RuntimeError:
        pass
    assert events(runtime) == []
    with runtime.sessions.write() as session:
        dated_jobs.complete_run(session, started, hits, clock=clock)
    assert len(events(runtime, "monitor.results.added")) == 1


def test_a_scheduled_run_sends_results_but_never_backfill_completed(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Callable[[], int],
) -> None:
    from herald.monitors.tasks import schedule_monitors

    enable_webhooks(runtime, member_key.team_id)
    content("Solar story", utc(2026, 11, 25, 1))
    monitor = make_monitor()
    clock.advance(timedelta(hours=1))
    schedule_monitors(runtime)
    drain()
    with runtime.sessions.read() as session:
        from herald.db.models.monitor import MonitorRun

        kinds = {
            row.kind: row.status
            for row in session.scalars(select(MonitorRun).where(MonitorRun.parent_run_id.is_(None)))
        }
    assert kinds == {"scheduled": "succeeded"}  # the scheduled task ran and finished
    [added] = events(runtime, "monitor.results.added")
    assert added["data"]["monitor_id"] == monitor["id"]
    assert events(runtime, "monitor.backfill.completed") == []

    # the same work asked for with run-now: its task's end is an event
    content("Solar story two", utc(2026, 11, 25, 2))
    task = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth).json()
    drain()
    [completed] = events(runtime, "monitor.backfill.completed")
    assert (completed["data"]["task_id"], completed["data"]["kind"]) == (task["task_id"], "manual")


def test_the_openapi_document_says_which_runs_send_which_events(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    paths = document["paths"]
    for path in ("/v1/monitors/{monitor_id}/run", "/v1/monitors/{monitor_id}/backfills"):
        text = paths[path]["post"]["description"]
        assert "`monitor.backfill.completed`" in text
        assert "`monitor.results.added`" in text
        assert "`monitor.run.failed`" in text
    schemas = document["components"]["schemas"]
    for name in ("DeliveryRecordOut", "AttemptRecordOut"):
        text = schemas[name]["properties"]["event_type"]["description"]
        assert "scheduled runs never send it" in text
