"""One validator for every search request: a monitor's saved search and a search within its
store reject what content search rejects, with the same codes (fields named ``search.*`` in a
monitor); a monitor stored before a rule was tightened keeps listing and running."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.monitor import Monitor, MonitorRun
from herald.runtime import Runtime

MANY_ENTITIES = [f"ent_{i:05d}" for i in range(5000)]
# (filters, code, field): each rejected by content search, so by every search request.
REJECTED: list[tuple[dict[str, Any], str, str]] = [
    ({"include_domains": ["not a domain"]}, "invalid_request", "include_domains.0"),
    ({"exclude_domains": ["bad domain.com"]}, "invalid_request", "exclude_domains.0"),
    ({"include_domains": ["https:// /x"]}, "invalid_request", "include_domains.0"),
    ({"entity_ids": MANY_ENTITIES}, "invalid_request", "entity_ids"),
    ({"entity_ids": MANY_ENTITIES[:101]}, "invalid_request", "entity_ids"),
    ({"include_domains": [f"d{i}.com" for i in range(11)]}, "too_many_domains", "include_domains"),
    (
        {"include_domains": ["a.com"], "exclude_domains": ["b.com"]},
        "domain_filter_conflict",
        "exclude_domains",
    ),
    ({"media_types": ["video"]}, "invalid_request", "media_types.0"),
]
IDS = ["bad-include", "bad-exclude", "bad-url", "5000-ids", "101-ids", "11-domains", "conflict",
       "media"]  # fmt: skip


def _error(response: Any) -> tuple[str, list[str]]:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["meta"]["request_id"] == response.headers["x-request-id"]
    return body["error"], [d["field"] for d in body.get("details", [])]


@pytest.mark.parametrize(("filters", "code", "field"), REJECTED, ids=IDS)
def test_a_monitor_rejects_what_content_search_rejects(
    client: TestClient, auth: dict[str, str], filters: dict[str, Any], code: str, field: str
) -> None:
    searched = client.post("/v1/content/search", json={"query": "chips", **filters}, headers=auth)
    assert _error(searched) == (code, [field])

    created = client.post(
        "/v1/monitors",
        json={"name": "chips", "search": {"query": "chips", **filters}},
        headers=auth,
    )
    assert _error(created) == (code, [f"search.{field}"])
    assert client.get("/v1/monitors", headers=auth).json()["monitors"] == []


@pytest.mark.parametrize(("filters", "code", "field"), REJECTED, ids=IDS)
def test_a_store_search_rejects_what_content_search_rejects(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: Callable[..., dict[str, Any]],
    filters: dict[str, Any],
    code: str,
    field: str,
) -> None:
    monitor = make_monitor("chips")
    response = client.post(
        f"/v1/monitors/{monitor['id']}/search", json={"query": "chips", **filters}, headers=auth
    )
    assert _error(response) == (code, [field])


def test_domains_are_stored_normalised_like_content_search_reads_them(
    make_monitor: Callable[..., dict[str, Any]],
) -> None:
    monitor = make_monitor(
        "chips", search={"query": "chips", "include_domains": ["https://WWW.Reuters.com/tech"]}
    )
    assert monitor["search"]["include_domains"] == ["reuters.com"]


def test_a_monitor_stored_before_the_limits_still_lists_and_runs(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
    drain: Callable[[], int],
) -> None:
    monitor = make_monitor("chips")
    legacy = {
        "query": "chips",
        "entity_ids": MANY_ENTITIES[:150],
        "include_domains": ["odd domain.com", "reuters.com"],
    }
    with runtime.sessions.write() as session:
        row = session.get(Monitor, monitor["id"])
        assert row is not None
        row.search = legacy

    listed = client.get("/v1/monitors", headers=auth)
    assert listed.status_code == 200
    assert listed.json()["monitors"][0]["search"] == legacy
    assert client.get(f"/v1/monitors/{monitor['id']}", headers=auth).status_code == 200

    assert client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth).status_code == 202
    drain()
    with runtime.sessions.read() as session:
        statuses = session.scalars(
            select(MonitorRun.status).where(
                MonitorRun.monitor_id == monitor["id"], MonitorRun.kind == "dated"
            )
        ).all()
    assert len(statuses) == 4
    assert set(statuses) == {"succeeded"}
