"""POST /v1/entities/search and GET /v1/entities/{id}/timeline: every rule, default and error."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentEntity, ContentItem
from herald.entities.service import get_entity_store, seed_knowledge_base
from herald.runtime import Runtime
from tests.enrich.factories import make_item

SEARCH = "/v1/entities/search"


@pytest.fixture(autouse=True)
def seeded(runtime: Runtime) -> None:
    """What a worker or `herald serve` does at start: load the (small, real) seed."""
    seed_knowledge_base(runtime)


def search(client: TestClient, auth: dict[str, str], **body: Any) -> Any:
    return client.post(SEARCH, json=body, headers=auth)


def entity_id(client: TestClient, auth: dict[str, str], name: str, kind: str) -> str:
    results = search(client, auth, query=name, entity_kinds=[kind]).json()["results"]
    return str(results[0]["entity"]["id"])


# --- search -----------------------------------------------------------------------------------


def test_search_returns_scored_entities_exact_and_alias_first(
    client: TestClient, auth: dict[str, str]
) -> None:
    response = search(client, auth, query="Google")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"results", "meta"}
    assert body["meta"]["request_id"]
    first = body["results"][0]
    assert first["entity"]["display_name"] == "Alphabet Inc."
    entity = first["entity"]
    assert entity["id"] == entity["entity_id"]
    assert entity["id"].startswith("ent_")
    assert set(entity) == {
        "id",
        "entity_id",
        "display_name",
        "entity_kind",
        "description",
        "aliases",
        "tags",
    }
    assert {"key": "ticker", "value": "GOOGL"} in entity["tags"]
    scores = [r["score"] for r in body["results"]]
    assert all(0 <= s <= 1 for s in scores)
    assert scores == sorted(scores, reverse=True)

    uk = search(client, auth, query="United Kingdom").json()["results"]
    assert uk[0]["entity"]["display_name"] == "United Kingdom"
    assert uk[0]["score"] >= 0.9
    assert (
        search(client, auth, query="UK").json()["results"][0]["entity"]["id"]
        == (uk[0]["entity"]["id"])
    )


def test_search_is_typo_tolerant_and_filters_kinds(
    client: TestClient, auth: dict[str, str]
) -> None:
    assert (
        search(client, auth, query="Micorsoft").json()["results"][0]["entity"]["display_name"]
        == "Microsoft"
    )
    places = search(client, auth, query="Paris", entity_kinds=["place"]).json()["results"]
    assert places
    assert all(r["entity"]["entity_kind"] == "place" for r in places)
    companies = search(client, auth, query="Paris", entity_kinds=["company", "person"]).json()
    assert all(r["entity"]["entity_kind"] in {"company", "person"} for r in companies["results"])


def test_search_limit_default_and_maximum(client: TestClient, auth: dict[str, str]) -> None:
    assert len(search(client, auth, query="a").json()["results"]) <= 10
    many = search(client, auth, query="united", limit=100)
    assert many.status_code == 200
    three = search(client, auth, query="united", limit=3).json()["results"]
    assert len(three) == 3


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": "   "},
        {"query": 5},
        {"query": "x", "limit": 0},
        {"query": "x", "limit": 101},
        {"query": "x", "limit": "10"},
        {"query": "x", "entity_kinds": ["planet"]},
        {"query": "x", "entity_kinds": "place"},
        {"query": "x", "colour": "red"},
    ],
)
def test_search_rejects_bad_requests(
    client: TestClient, auth: dict[str, str], body: dict[str, Any]
) -> None:
    response = client.post(SEARCH, json=body, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_search_needs_a_key_and_is_the_same_for_every_workspace(
    client: TestClient, auth: dict[str, str], other_auth: dict[str, str]
) -> None:
    assert client.post(SEARCH, json={"query": "Apple"}).status_code == 401
    mine = search(client, auth, query="Apple").json()["results"]
    theirs = search(client, other_auth, query="Apple").json()["results"]
    assert mine == theirs
    assert mine


def test_imported_entities_become_searchable(
    client: TestClient, auth: dict[str, str], runtime: Runtime
) -> None:
    from herald.entities.service import import_entities

    assert search(client, auth, query="Zephyr Dynamics").json()["results"] == []
    with runtime.sessions.write() as session:
        import_entities(
            session,
            ['{"display_name": "Zephyr Dynamics", "entity_kind": "company"}'],
            now=runtime.clock.now(),
        )
    results = search(client, auth, query="Zephyr Dynamics").json()["results"]
    assert results[0]["entity"]["display_name"] == "Zephyr Dynamics"


# --- timeline ---------------------------------------------------------------------------------


def link_items(runtime: Runtime, entity: str, dates: list[tuple[datetime, str]]) -> list[str]:
    """Items published at ``dates`` (with media types), linked to ``entity``; newest first."""
    ids = []
    with runtime.sessions.write() as session:
        for number, (published, media_type) in enumerate(dates):
            item = make_item(
                session,
                title=f"Story {number}",
                body="text",
                published_at=published,
                now=runtime.clock.now(),
                media_type=media_type,
                source_name=f"Outlet {number}",
            )
            session.add(
                ContentEntity(
                    content_id=item.id,
                    entity_id=entity,
                    mention_count=1,
                    salience=0.5,
                    confidence=0.9,
                    published_at=published,
                    media_type=media_type,
                )
            )
            ids.append(item.id)
    order = sorted(zip(dates, ids, strict=True), key=lambda d: d[0][0], reverse=True)
    return [i for _, i in order]


@pytest.fixture
def entity(client: TestClient, auth: dict[str, str]) -> str:
    return entity_id(client, auth, "United Kingdom", "place")


def timeline(client: TestClient, auth: dict[str, str], entity: str, **params: Any) -> Any:
    return client.get(f"/v1/entities/{entity}/timeline", params=params, headers=auth)


def test_timeline_defaults_to_the_last_60_days_newest_first(
    client: TestClient, auth: dict[str, str], runtime: Runtime, clock: FrozenClock, entity: str
) -> None:
    now = clock.now()
    ids = link_items(
        runtime,
        entity,
        [
            (now - timedelta(days=1), "news"),
            (now - timedelta(days=59), "wire"),
            (now - timedelta(days=61), "news"),  # before the default window
            (now + timedelta(hours=1), "news"),  # after "now"
            (now - timedelta(hours=2), "podcast"),
        ],
    )
    response = timeline(client, auth, entity)
    assert response.status_code == 200
    body = response.json()
    assert body["entity_id"] == entity
    assert body["meta"]["request_id"]
    assert (body["limit"], body["offset"], body["next_offset"], body["has_more"]) == (
        25,
        0,
        None,
        False,
    )
    got = [t["id"] for t in body["timeline"]]
    assert got == [ids[1], ids[2], ids[3]]  # newest first; the future and the too-old left out
    item = body["timeline"][0]
    assert set(item) == {"id", "media_type", "published_date", "title", "source"}
    assert item["media_type"] == "podcast"
    assert item["source"] == {"name": "Outlet 4"}
    assert item["published_date"] == "2026-11-25T10:00:00Z"


def test_timeline_windows(
    client: TestClient, auth: dict[str, str], runtime: Runtime, clock: FrozenClock, entity: str
) -> None:
    now = clock.now()
    ids = link_items(
        runtime,
        entity,
        [(now - timedelta(days=d), "news") for d in (1, 10, 100, 400)],
    )

    def got(**params: Any) -> list[str]:
        response = timeline(client, auth, entity, **params)
        assert response.status_code == 200, response.json()
        return [t["id"] for t in response.json()["timeline"]]

    # An explicit window may be longer than 60 days (the limit is content search's).
    assert got(start_date="2025-01-01", end_date="2026-11-25") == ids[:4]
    assert got(start_date="2026-08-01") == ids[:3]  # open end: through now
    assert got(end_date="2026-11-15") == [ids[1]]  # open start: 60 days back
    assert got(start_date="2026-11-15", end_date="2026-11-15") == [ids[1]]  # one whole day
    assert got(start_date="2026-11-15T12:00:00Z", end_date="2026-11-24T11:59:59") == [ids[1]]
    # A datetime start and a date-only end on the same day: the end includes that whole day.
    assert got(start_date="2026-11-15T10:00:00Z", end_date="2026-11-15") == [ids[1]]
    # A lone end older than 60 days covers the 60 days before it (from 00:00Z of its day - 60).
    assert got(end_date="2025-12-20") == [ids[3]]  # published 2025-10-21 12:00Z
    assert got(end_date="2025-12-21") == []  # its window starts 2025-10-22


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"start_date": "2026-11-20", "end_date": "2026-11-01"}, "date_window_too_long"),
        ({"start_date": "yesterday"}, "invalid_request"),
        ({"end_date": "2026-13-40"}, "invalid_request"),
        ({"limit": 0}, "invalid_request"),
        ({"limit": 101}, "invalid_request"),
        ({"limit": "ten"}, "invalid_request"),
        ({"offset": -1}, "invalid_request"),
        ({"media_types": "radio"}, "invalid_request"),
        ({"media_types": "news,tv"}, "invalid_request"),
    ],
)
def test_timeline_rejects_bad_parameters(
    client: TestClient, auth: dict[str, str], entity: str, params: dict[str, Any], code: str
) -> None:
    response = timeline(client, auth, entity, **params)
    assert response.status_code == 400
    assert response.json()["error"] == code


def test_timeline_media_types_filter(
    client: TestClient, auth: dict[str, str], runtime: Runtime, clock: FrozenClock, entity: str
) -> None:
    now = clock.now()
    link_items(
        runtime,
        entity,
        [(now - timedelta(hours=h), t) for h, t in ((1, "news"), (2, "wire"), (3, "podcast"))],
    )

    def kinds(**params: Any) -> list[str]:
        return [
            t["media_type"] for t in timeline(client, auth, entity, **params).json()["timeline"]
        ]

    assert kinds(media_types="wire") == ["wire"]
    assert kinds(media_types=["news", "podcast"]) == ["news", "podcast"]
    assert kinds(media_types="podcast,wire") == ["wire", "podcast"]


def test_timeline_pagination(
    client: TestClient, auth: dict[str, str], runtime: Runtime, clock: FrozenClock, entity: str
) -> None:
    now = clock.now()
    ids = link_items(runtime, entity, [(now - timedelta(hours=h), "news") for h in range(1, 8)])
    first = timeline(client, auth, entity, limit=3).json()
    assert [t["id"] for t in first["timeline"]] == ids[:3]
    assert (first["limit"], first["offset"], first["next_offset"], first["has_more"]) == (
        3,
        0,
        3,
        True,
    )
    second = timeline(client, auth, entity, limit=3, offset=3).json()
    assert [t["id"] for t in second["timeline"]] == ids[3:6]
    last = timeline(client, auth, entity, limit=3, offset=6).json()
    assert [t["id"] for t in last["timeline"]] == ids[6:]
    assert (last["next_offset"], last["has_more"]) == (None, False)
    beyond = timeline(client, auth, entity, limit=3, offset=50).json()
    assert beyond["timeline"] == []
    assert beyond["next_offset"] is None
    exact = timeline(client, auth, entity, limit=7).json()
    assert len(exact["timeline"]) == 7
    assert exact["next_offset"] is None


def test_timeline_skips_deleted_items_and_is_the_same_for_every_workspace(
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    entity: str,
) -> None:
    now = clock.now()
    ids = link_items(runtime, entity, [(now - timedelta(hours=h), "news") for h in (1, 2)])
    with runtime.sessions.write() as session:
        row = session.scalars(select(ContentItem).where(ContentItem.id == ids[0])).one()
        row.deleted_at = now
    mine = timeline(client, auth, entity).json()
    theirs = timeline(client, other_auth, entity).json()
    assert [t["id"] for t in mine["timeline"]] == [ids[1]]
    assert mine["timeline"] == theirs["timeline"]


def test_timeline_of_an_unknown_entity_is_404(client: TestClient, auth: dict[str, str]) -> None:
    response = timeline(client, auth, "ent_doesnotexist")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
    assert client.get("/v1/entities/ent_x/timeline").status_code == 401


def test_the_knowledge_base_is_seeded_once(runtime: Runtime) -> None:
    store = get_entity_store(runtime)
    store.ensure_seeded()
    assert seed_knowledge_base(runtime) == 0  # already seeded
    assert len(store.search_index()) >= 20


def test_search_never_seeds_in_a_request(
    client: TestClient, auth: dict[str, str], runtime: Runtime
) -> None:
    from sqlalchemy import delete

    from herald.db.models.entity import Entity

    with runtime.sessions.write() as session:
        session.execute(delete(Entity))
    fresh = Runtime(runtime.settings, clock=runtime.clock)
    try:
        assert get_entity_store(fresh).search_index().search("Paris") == []
    finally:
        fresh.close()
