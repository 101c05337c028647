"""Monitors on the real search service (hybrid retrieval, the session's embedding model)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.jobs.worker import Worker
from herald.monitors.ports import monitor_search
from herald.runtime import Runtime
from herald.search.service import get_search
from tests.enrich.models import embedder
from tests.search.support import put_item


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.slow
def test_dated_jobs_and_store_search_use_the_search_service(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
) -> None:
    runtime.service("embedder", embedder)  # the session's model, not one per test
    assert monitor_search(runtime) is get_search(runtime)
    panels = put_item(
        runtime,
        "https://news.example/solar-factory",
        title="Solar panel factory opens in Texas",
        body="A new factory will build solar panels for rooftop installations.",
        published_at=utc(2026, 11, 25, 8),
    )
    prices = put_item(
        runtime,
        "https://news.example/solar-prices",
        title="Solar panel prices fall again",
        body="Module prices for solar panels dropped for the sixth month.",
        published_at=utc(2026, 11, 23, 9),
    )
    put_item(
        runtime,
        "https://news.example/old-solar",
        title="Solar panel recycling plant",
        body="Recycling of solar panels starts at scale.",
        published_at=utc(2026, 11, 10, 9),  # outside the run's four days
    )
    monitor = make_monitor("solar panels")
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    Worker(runtime).drain()

    results = client.get(f"/v1/monitors/{monitor['id']}/results", headers=auth).json()
    captured = [r["content_item"]["id"] for r in results["results"]]
    assert panels in captured
    assert prices in captured
    assert all(0 <= r["score"] <= 1 for r in results["results"])
    assert len(captured) == len(set(captured))
    for result in results["results"]:
        assert result["published_date"] in {"2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"}

    found = client.post(
        f"/v1/monitors/{monitor['id']}/search", json={"query": "solar panel prices"}, headers=auth
    ).json()["results"]
    ids = [r["content_item"]["id"] for r in found]
    assert prices in ids
    assert set(ids) <= set(captured)  # only the store
