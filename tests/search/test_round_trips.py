"""What one search costs the database, counted on the wire: a pin, so it cannot creep back up.

A search over HTTP on PostgreSQL: the key check (with a rate limit: and the key's shared bucket)
in one transaction, the index's freshness check and the read of the result rows in another, each
on a connection the pool pings before handing it out. SQLite counts statements in-process, BEGIN
included.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.workspace import ApiKey
from herald.runtime import Runtime
from herald.workspaces.service import create_key, revoke_key
from tests.db.round_trips import RoundTripCounter
from tests.enrich.models import embedder
from tests.search.support import put_item

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
QUERY = {"query": "central bank interest rates"}

# (backend, rate limit on) -> round trips (PostgreSQL) or statements (SQLite) of one search
PINNED = {
    ("postgres", False): 4,
    ("postgres", True): 5,
    ("sqlite", False): 4,
    ("sqlite", True): 4,
}


@pytest.fixture(params=[False, True], ids=["unlimited", "rate-limited"])
def limited(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def searching(
    settings: Settings, clock: FrozenClock, limited: bool
) -> Iterator[tuple[Runtime, TestClient, dict[str, str]]]:
    runtime = Runtime(
        settings.model_copy(update={"rate_limit_per_minute": 600 if limited else 0}), clock=clock
    )
    runtime.service("embedder", embedder)
    with runtime.sessions.write() as session:
        key = create_key(session, workspace="acme", role="member", clock=clock)
    with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
        yield runtime, client, {"x-api-key": key.api_key}
    runtime.close()


def test_one_search_costs_what_is_pinned(
    searching: tuple[Runtime, TestClient, dict[str, str]],
    backend: str,
    limited: bool,
    tmp_path: Path,
) -> None:
    runtime, client, auth = searching
    ids = {
        put_item(
            runtime,
            f"https://news.example.com/{n}",
            title=f"Central bank raises interest rates ({n})",
            body="The central bank raised its key interest rate to fight inflation.",
            published_at=NOW - timedelta(days=n + 1),
        )
        for n in range(3)
    }
    counter = RoundTripCounter(runtime.engine, tmp_path / "trace")
    first = client.post("/v1/content/search", json=QUERY, headers=auth)  # catches the index up
    assert first.status_code == 200, first.text
    try:
        with counter.counted() as trips:  # a pooled connection: the pool pings it first
            response = client.post("/v1/content/search", json=QUERY, headers=auth)
    finally:
        counter.close()
    assert response.status_code == 200, response.text
    assert response.json()["results"] == first.json()["results"]
    assert {r["content_item"]["id"] for r in response.json()["results"]} == ids
    assert trips.count == PINNED[(backend, limited)], str(trips)


def test_fewer_round_trips_keep_revocation_immediate(
    searching: tuple[Runtime, TestClient, dict[str, str]],
) -> None:
    runtime, client, auth = searching
    assert client.post("/v1/content/search", json=QUERY, headers=auth).status_code == 200
    with runtime.sessions.write() as session:
        key_id = session.scalars(select(ApiKey.id)).one()
        revoke_key(session, key_id, runtime.clock)
    refused = client.post("/v1/content/search", json=QUERY, headers=auth)
    assert refused.status_code == 401
    assert refused.json()["error"] == "unauthorized"


def test_fewer_round_trips_keep_one_rate_limit_for_every_process(
    settings: Settings, clock: FrozenClock, backend: str
) -> None:
    # Two runtimes are two API processes (each its own pool); on SQLite there is one process.
    limited = settings.model_copy(update={"rate_limit_per_minute": 5})
    runtimes = [Runtime(limited, clock=clock) for _ in range(2 if backend == "postgres" else 1)]
    with runtimes[0].sessions.write() as session:
        key = create_key(session, workspace="acme", role="member", clock=clock)
    clients = [TestClient(create_app(r), raise_server_exceptions=False) for r in runtimes]
    try:
        statuses = [
            clients[n % len(clients)]
            .post("/v1/content/search", json=QUERY, headers={"x-api-key": key.api_key})
            .status_code
            for n in range(8)
        ]
    finally:
        for client, runtime in zip(clients, runtimes, strict=True):
            client.close()
            runtime.close()
    # The clock stands still: nothing refills, and the processes share one bucket of 5.
    assert statuses == [200] * 5 + [429] * 3
