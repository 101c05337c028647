"""DELETE /v1/admin/content/{content_id}: the item leaves every read path, on both databases."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentDeletion, ContentEntity, ContentRemoval
from herald.db.models.monitor import MonitorResult
from herald.db.models.webhooks import WebhookEvent
from herald.db.models.workspace import Team
from herald.runtime import Runtime
from herald.webhooks.events import create_event
from tests.client.conftest import run_jobs
from tests.content.conftest import ITEMS, PHRASE

ECB = "ent_99yig2g1bclgxrqxtguv"  # "European Central Bank" in the small seed
WINDOW = {"start_date": "2026-11-20", "end_date": "2026-11-25"}


def _search(client: TestClient, auth: dict[str, str], query: str) -> list[str]:
    response = client.post("/v1/content/search", json={"query": query, **WINDOW}, headers=auth)
    assert response.status_code == 200, response.text
    return [r["content_item"]["id"] for r in response.json()["results"]]


def _monitor_with_results(client: TestClient, auth: dict[str, str], runtime: Runtime) -> str:
    created = client.post(
        "/v1/monitors",
        json={"name": "ECB", "search": {"query": "European Central Bank interest rates"}},
        headers=auth,
    )
    assert created.status_code == 201, created.text
    monitor_id = str(created.json()["id"])
    backfill = client.post(
        f"/v1/monitors/{monitor_id}/backfills", json={"dates": ["2026-11-24"]}, headers=auth
    )
    assert backfill.status_code in (200, 201, 202), backfill.text
    run_jobs(runtime)
    return monitor_id


def _results(client: TestClient, auth: dict[str, str], monitor_id: str) -> list[str]:
    response = client.get(f"/v1/monitors/{monitor_id}/results", params=WINDOW, headers=auth)
    assert response.status_code == 200, response.text
    return [r["content_item"]["id"] for r in response.json()["results"]]


def _preview(client: TestClient, auth: dict[str, str]) -> str:
    preview = client.post(
        "/v1/monitors/preview", json={"search": {"query": PHRASE}, "days": 3}, headers=auth
    )
    assert preview.status_code == 200, preview.text
    return preview.text


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) >= {"error", "message", "meta"}
    assert body["error"] == {401: "unauthorized", 404: "not_found"}[status]
    return body


def test_a_deleted_item_leaves_every_read_path(
    client: TestClient,
    runtime: Runtime,
    stored: list[str],
    auth: dict[str, str],
    other_auth: dict[str, str],
    admin_auth: dict[str, str],
) -> None:
    gone, kept, third = stored
    monitor_id = _monitor_with_results(client, auth, runtime)
    feed = client.post(f"/v1/monitors/{monitor_id}/feed", headers=auth)
    assert feed.status_code == 201, feed.text
    feed_path = "/" + feed.json()["feed_url"].split("/", 3)[3]
    assert gone in _results(client, auth, monitor_id)
    assert gone in client.get(feed_path).text
    assert _search(client, auth, PHRASE) == [gone]
    assert gone in _preview(client, auth)
    timeline = client.get(f"/v1/entities/{ECB}/timeline", params=WINDOW, headers=auth)
    assert gone in [t["id"] for t in timeline.json()["timeline"]]
    cluster_id = client.get(f"/v1/content/{gone}", headers=auth).json()["content_item"][
        "cluster_id"
    ]
    assert cluster_id is not None
    before = client.get(f"/v1/news/clusters/{cluster_id}", headers=auth).json()["cluster"]
    assert (before["member_count"], before["unique_source_count"]) == (3, 3)

    # Member keys do not see operator endpoints at all; an unknown id is a 404 envelope.
    _error(client.delete(f"/v1/admin/content/{gone}", headers=auth), 404)
    _error(client.delete("/v1/admin/content/cnt_does_not_exist", headers=admin_auth), 404)
    _error(client.delete(f"/v1/admin/content/{gone}"), 401)

    deleted = client.delete(f"/v1/admin/content/{gone}", headers=admin_auth)
    assert deleted.status_code == 200, deleted.text
    body = deleted.json()
    assert (body["content_id"], body["deleted_count"]) == (gone, 1)
    assert body["deletion_id"].startswith("del_")
    # Deleting again: it is gone (the deletion already happened once, completely).
    _error(client.delete(f"/v1/admin/content/{gone}", headers=admin_auth), 404)

    for headers in (auth, other_auth, admin_auth):
        _error(client.get(f"/v1/content/{gone}", headers=headers), 404)
        assert gone not in _search(client, headers, "European Central Bank interest rates")
    assert _search(client, auth, PHRASE) == []
    assert kept in _search(client, auth, "European Central Bank interest rates")
    timeline = client.get(f"/v1/entities/{ECB}/timeline", params=WINDOW, headers=auth)
    ids = [t["id"] for t in timeline.json()["timeline"]]
    assert gone not in ids
    assert kept in ids
    assert gone not in _results(client, auth, monitor_id)
    assert gone not in client.get(feed_path).text
    assert gone not in _preview(client, auth)

    after = client.get(f"/v1/news/clusters/{cluster_id}", headers=auth)
    cluster = after.json()["cluster"]
    assert (cluster["member_count"], cluster["unique_source_count"]) == (2, 2)
    assert cluster["source_keys"] == ["example.net", "example.org"]  # example.com's item went
    assert gone not in [m["content_id"] for m in after.json()["members"]]
    assert ITEMS[0]["title"] not in after.text  # the title came from the deleted item
    assert PHRASE not in after.text

    with runtime.sessions.read() as session:
        assert (
            session.scalars(select(ContentEntity).where(ContentEntity.content_id == gone)).all()
            == []
        )
        assert (
            session.scalars(select(MonitorResult).where(MonitorResult.content_id == gone)).all()
            == []
        )
        assert (
            session.scalars(
                select(StoryClusterMember).where(StoryClusterMember.content_id == gone)
            ).all()
            == []
        )
        assert all(
            PHRASE not in (c.abstract + c.title) for c in session.scalars(select(StoryCluster))
        )
        assert session.get(ContentRemoval, gone) is not None  # every process's index drops it
        record = session.scalars(select(ContentDeletion)).one()
    assert (record.deleted_count, record.status, record.reason) == (1, "done", "request")
    assert record.selector == {"content_id": gone}
    assert record.actor.startswith("key:")
    assert third  # untouched


def test_stored_webhook_events_lose_the_deleted_item(
    client: TestClient, runtime: Runtime, stored: list[str], admin_auth: dict[str, str]
) -> None:
    gone, kept, _ = stored
    with runtime.sessions.write() as session:
        team_id = session.scalars(select(Team.id)).first()
        assert team_id is not None
        event_id, _delivery = create_event(
            session,
            team_id=team_id,
            event_type="monitor.results.added",
            data={
                "monitor_id": "mon_x",
                "new_result_count": 2,
                "items": [
                    {"id": gone, "title": ITEMS[0]["title"], "url": ITEMS[0]["url"]},
                    {"id": kept, "title": ITEMS[1]["title"], "url": ITEMS[1]["url"]},
                ],
            },
            clock=runtime.clock,
        )
    response = client.delete(f"/v1/admin/content/{gone}", headers=admin_auth)
    assert response.status_code == 200, response.text
    with runtime.sessions.read() as session:
        event = session.get(WebhookEvent, event_id)
        assert event is not None
        body = json.loads(event.body)
    assert [item["id"] for item in body["data"]["items"]] == [kept]
    assert str(ITEMS[0]["url"]) not in event.body
    assert str(ITEMS[0]["title"]) not in event.body
    assert body["data"]["new_result_count"] == 2
