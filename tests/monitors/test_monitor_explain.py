"""``explain=true``: match evidence from the real search's features on hand-made items."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.jobs.worker import Worker
from herald.runtime import Runtime
from herald.search.features import FEATURE_NAMES
from tests.enrich.models import embedder
from tests.search.support import put_item


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.slow
def test_explanations_name_the_matched_terms_phrases_and_entities(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
) -> None:
    runtime.service("embedder", embedder)
    prices = put_item(
        runtime,
        "https://news.example/solar-prices",
        title="Solar panel prices fall again",
        body="Module prices for photovoltaic modules dropped for the sixth month.",
        summary="Photovoltaic module prices dropped for the sixth month in a row.",
        published_at=utc(2026, 11, 25, 8),
        entity_ids=["ent_acme"],
    )
    put_item(
        runtime,
        "https://news.example/wind",
        title="Wind turbine orders rise",
        body="Orders for offshore wind turbines rose sharply this quarter.",
        published_at=utc(2026, 11, 25, 9),
    )
    search = {"query": 'solar "panel prices" module', "entity_ids": ["ent_acme", "ent_other"]}

    plain = client.post("/v1/monitors/preview", json={"search": search, "days": 1}).json()
    assert "error" in plain  # no key: 401, nothing leaks
    body = client.post(
        "/v1/monitors/preview", json={"search": search, "days": 1}, headers=auth
    ).json()
    assert "match" not in body["days"][0]["top"][0]  # opt-in only
    explained = client.post(
        "/v1/monitors/preview", json={"search": search, "days": 1, "explain": True}, headers=auth
    ).json()
    (top,) = explained["days"][0]["top"]
    assert top["content_item"]["id"] == prices
    match = top["match"]
    assert match["terms"]["title"] == ["solar", "panel", "prices"]
    assert match["terms"]["summary"] == ["prices", "module"]
    assert match["phrases"] == ["panel prices"]
    assert match["entities"] == ["ent_acme"]
    assert 0 < match["semantic_similarity"] <= 1
    contributions = match["contributions"]
    assert 1 <= len(contributions) <= 3
    assert all(c["feature"] in FEATURE_NAMES and c["text"] for c in contributions)
    weights = [c["weight"] for c in contributions]
    assert weights == sorted(weights, reverse=True)

    monitor = make_monitor(**{"search": search})
    client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-11-25"]}, headers=auth
    )
    Worker(runtime).drain()
    results = client.get(f"/v1/monitors/{monitor['id']}/results?explain=true", headers=auth).json()[
        "results"
    ]
    assert [r["content_item"]["id"] for r in results] == [prices]
    assert results[0]["match"]["phrases"] == ["panel prices"]
    assert results[0]["match"]["semantic_similarity"] == match["semantic_similarity"]
    unexplained = client.get(f"/v1/monitors/{monitor['id']}/results", headers=auth).json()
    assert "match" not in unexplained["results"][0]

    found = client.post(
        f"/v1/monitors/{monitor['id']}/search",
        json={"query": "wind turbines", "explain": True},
        headers=auth,
    ).json()["results"]
    assert found == []  # the wind item is not in the store
    found = client.post(
        f"/v1/monitors/{monitor['id']}/search",
        json={"query": "photovoltaic prices", "explain": True, "entity_ids": ["ent_acme"]},
        headers=auth,
    ).json()["results"]
    terms = found[0]["match"]["terms"]
    assert terms == {"title": ["prices"], "summary": ["photovoltaic", "prices"]}
    assert found[0]["match"]["entities"] == ["ent_acme"]
