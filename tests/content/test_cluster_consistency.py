"""A story stays true to its members when one is updated to a new version or deleted."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.content.conftest import ITEMS


def _story(client: TestClient, auth: dict[str, str], content_id: str) -> dict[str, Any]:
    item = client.get(f"/v1/content/{content_id}", headers=auth).json()["content_item"]
    response = client.get(f"/v1/news/clusters/{item['cluster_id']}", headers=auth)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _ingest(
    client: TestClient, runtime: Runtime, admin_auth: dict[str, str], items: list[dict[str, Any]]
) -> list[str]:
    """Store ``items`` through the admin API and run every job they queue; their ids."""
    response = client.post("/v1/admin/content", json=items, headers=admin_auth)
    assert response.status_code == 200, response.text
    run_jobs(runtime)
    return list(response.json()["content_ids"])


def _consistent(story: dict[str, Any]) -> None:
    cluster, members = story["cluster"], story["members"]
    dates = [m["published_date"] for m in members]
    assert [m["content_item"]["published_date"] for m in members] == dates
    assert cluster["member_count"] == len(members)
    assert (cluster["first_published_at"], cluster["latest_published_at"]) == (
        min(dates),
        max(dates),
    )
    assert cluster["latest_member_added_at"] == max(m["assigned_at"] for m in members)
    assert cluster["title"] in [m["content_item"]["title"] for m in members]


def test_an_updated_member_updates_its_story(
    client: TestClient,
    runtime: Runtime,
    stored: list[str],
    auth: dict[str, str],
    admin_auth: dict[str, str],
) -> None:
    before = _story(client, auth, stored[0])
    assert before["cluster"]["member_count"] == 3
    _consistent(before)
    # Every item gets a new title; one gets a corrected (later) publication time.
    updated = [dict(item, title=f"{item['title']} (updated)") for item in ITEMS]
    updated[0]["published_date"] = "2026-11-24T12:30:00Z"
    _ingest(client, runtime, admin_auth, updated)
    after = _story(client, auth, stored[0])
    _consistent(after)
    assert after["cluster"]["latest_published_at"] == "2026-11-24T12:30:00Z"
    assert after["cluster"]["title"].endswith("(updated)")


def test_deleting_the_latest_member_moves_latest_member_added_at_back(
    client: TestClient,
    runtime: Runtime,
    clock: FrozenClock,
    stored: list[str],
    auth: dict[str, str],
    admin_auth: dict[str, str],
) -> None:
    clock.advance(timedelta(hours=2))
    late = dict(
        ITEMS[2],
        url="https://late.example.info/ecb-decision",
        source={"name": "Late", "domain": "late.example.info"},
        published_date="2026-11-24T12:00:00Z",
    )
    (late_id,) = _ingest(client, runtime, admin_auth, [late])
    story = _story(client, auth, late_id)
    assert story["cluster"]["member_count"] == 4
    _consistent(story)
    deleted = client.delete(f"/v1/admin/content/{late_id}", headers=admin_auth)
    assert deleted.status_code == 200, deleted.text
    after = _story(client, auth, stored[0])
    assert after["cluster"]["member_count"] == 3
    _consistent(after)


def test_an_updated_member_of_a_closed_story_updates_it(
    client: TestClient,
    runtime: Runtime,
    stored: list[str],
    auth: dict[str, str],
    admin_auth: dict[str, str],
) -> None:
    # A deletion closes the story (its working profile is dropped).
    deleted = client.delete(f"/v1/admin/content/{stored[1]}", headers=admin_auth)
    assert deleted.status_code == 200, deleted.text
    before = _story(client, auth, stored[0])
    assert before["cluster"]["member_count"] == 2
    updated = [dict(item, title=f"{item['title']} (updated)") for item in (ITEMS[0], ITEMS[2])]
    updated[1]["published_date"] = "2026-11-24T13:00:00Z"
    _ingest(client, runtime, admin_auth, updated)
    after = _story(client, auth, stored[0])
    _consistent(after)
    assert after["cluster"]["latest_published_at"] == "2026-11-24T13:00:00Z"
