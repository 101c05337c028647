"""POST /v1/content/search over HTTP: rules, defaults, pinned error codes, the result shape."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.runtime import Runtime
from tests.search.support import put_item

URL = "/v1/content/search"


@pytest.fixture
def backend() -> str:
    # HTTP rules and shapes do not depend on the adapter; the contract suite covers both.
    return "sqlite"


NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def post(client: TestClient, auth: dict[str, str], body: Any) -> Any:
    return client.post(URL, json=body, headers=auth)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid_request"),
        ({"query": "   "}, "invalid_request"),
        ({"query": 5}, "invalid_request"),
        ({"query": "x", "surprise": 1}, "invalid_request"),
        ({"query": "x", "start_date": "2026-11-01"}, "date_window_incomplete"),
        ({"query": "x", "end_date": "2026-11-01"}, "date_window_incomplete"),
        (
            {"query": "x", "start_date": "2026-09-01", "end_date": "2026-11-01"},
            "date_window_too_long",
        ),
        (
            {"query": "x", "start_date": "2026-11-02", "end_date": "2026-11-01"},
            "date_window_too_long",
        ),
        ({"query": "x", "start_date": "yesterday", "end_date": "2026-11-01"}, "invalid_request"),
        ({"query": "x", "media_types": ["blog"]}, "invalid_request"),
        ({"query": "x", "include_domains": [f"d{i}.com" for i in range(11)]}, "too_many_domains"),
        ({"query": "x", "exclude_domains": [f"d{i}.com" for i in range(11)]}, "too_many_domains"),
        (
            {"query": "x", "include_domains": ["a.com"], "exclude_domains": ["b.com"]},
            "domain_filter_conflict",
        ),
        # Not a host name: it would match nothing, and an exclusion would exclude nothing.
        ({"query": "x", "include_domains": ["*.example.com"]}, "invalid_request"),
        ({"query": "x", "exclude_domains": ["example.com,wire.org"]}, "invalid_request"),
        ({"query": "x", "exclude_domains": ["news..example.com"]}, "invalid_request"),
        # A bracketed host that is no IPv6 address, or an address with a port that is not one.
        ({"query": "x", "include_domains": ["[2001:db8::g]"]}, "invalid_request"),
        ({"query": "x", "include_domains": ["[2001:db8::1]:http"]}, "invalid_request"),
        ({"query": "x", "exclude_domains": ["2001:db8:::1"]}, "invalid_request"),
        ({"query": "x", "limit": 0}, "invalid_request"),
        ({"query": "x", "limit": 101}, "invalid_request"),
        ({"query": "x", "limit": "10"}, "invalid_request"),
        ({"query": "x", "entity_ids": "ent_1"}, "invalid_request"),
        # A blank id names no entity: dropped, it would leave the search unfiltered.
        ({"query": "x", "entity_ids": [""]}, "invalid_request"),
        ({"query": "x", "entity_ids": ["ent_1", " "]}, "invalid_request"),
    ],
)
def test_rules_and_pinned_error_codes(
    client: TestClient, auth: dict[str, str], body: Any, code: str
) -> None:
    response = post(client, auth, body)
    assert response.status_code == 400
    payload = response.json()
    assert payload["error"] == code
    assert payload["meta"]["request_id"] == response.headers["x-request-id"]


def test_needs_a_key(client: TestClient) -> None:
    response = client.post(URL, json={"query": "x"})
    assert response.status_code == 401
    assert response.json()["error"] == "unauthorized"


def test_results_in_the_search_shape(
    search_runtime: Runtime, client: TestClient, auth: dict[str, str]
) -> None:
    article = put_item(
        search_runtime,
        "https://news.example.com/ecb",
        title="European Central Bank raises interest rates",
        body="The ECB raised its key interest rate to fight inflation in the euro area.",
        key_points=["Rates up"],
        published_at=NOW - timedelta(days=1),
        domain="news.example.com",
    )
    episode = put_item(
        search_runtime,
        "https://pod.example.com/ep1",
        title="Why central banks raise interest rates",
        body="In this episode we discuss how interest rates fight inflation.",
        published_at=NOW - timedelta(days=2),
        media_type="podcast",
        domain="pod.example.com",
    )
    put_item(
        search_runtime,
        "https://news.example.com/old",
        title="Interest rates in the archive",
        body="Central bank interest rates long ago.",
        published_at=NOW - timedelta(days=61),
    )
    response = post(client, auth, {"query": "central bank interest rates"})
    assert response.status_code == 200
    payload = response.json()
    assert payload["meta"]["request_id"] == response.headers["x-request-id"]
    results = {r["content_item"]["id"]: r for r in payload["results"]}
    assert set(results) == {article, episode}  # the 61-day-old item is outside the default window
    news = results[article]["content_item"]
    assert news["article_id"].startswith("art_")
    assert news["source"] == {"name": "news.example.com", "domain": "news.example.com"}
    assert news["key_points"] == ["Rates up"]
    assert news["published_date"].endswith("Z")
    assert "body" not in news
    assert "summary" not in news
    podcast = results[episode]["content_item"]
    assert "article_id" not in podcast
    assert podcast["episode_id"]
    assert podcast["podcast_id"]
    scores = [r["score"] for r in payload["results"]]
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 for s in scores)

    limited = post(client, auth, {"query": "central bank interest rates", "limit": 1}).json()
    assert len(limited["results"]) == 1
    window = post(
        client,
        auth,
        {"query": "interest rates archive", "start_date": "2026-09-20", "end_date": "2026-11-19"},
    ).json()
    assert [r["content_item"]["title"] for r in window["results"]] == [
        "Interest rates in the archive"
    ]
    assert post(client, auth, {"query": '"unlikely phrase here"'}).json()["results"] == []
