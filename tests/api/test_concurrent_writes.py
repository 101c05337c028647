"""Concurrent requests that write the same thing: one wins, the other gets a defined answer,
never a 500. Real requests on threads against the app, on SQLite and PostgreSQL.

On PostgreSQL the test makes the race certain instead of likely: it holds a lock that lets both
requests read (and find nothing yet) but not write, waits until both are blocked, then lets go.
SQLite runs one writer at a time, so there the requests simply run concurrently.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import psycopg
from fastapi.testclient import TestClient

from herald.runtime import Runtime

URL = "https://93.184.215.14/hook"  # a public address: no DNS involved


def plain_url(runtime: Runtime) -> str:
    return runtime.settings.resolved_database_url.replace("+psycopg", "")


@contextmanager
def holding(runtime: Runtime, statement: str) -> Iterator[None]:
    """Run ``statement`` (a lock) in a transaction held open until the block ends (PostgreSQL)."""
    if runtime.backend != "postgresql":
        yield
        return
    with psycopg.connect(plain_url(runtime)) as conn:
        conn.execute(statement)
        yield
        conn.commit()


def wait_until_blocked(runtime: Runtime, count: int) -> None:
    """Until ``count`` sessions wait for a lock (both requests reached their write)."""
    if runtime.backend != "postgresql":
        return
    deadline = time.monotonic() + 15
    with psycopg.connect(plain_url(runtime), autocommit=True) as conn:
        while time.monotonic() < deadline:
            waiting = conn.execute(
                "SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted"
                " AND pid <> pg_backend_pid()"
            ).fetchone()
            if waiting is not None and waiting[0] >= count:
                return
            time.sleep(0.02)
    raise AssertionError("the requests never blocked on the held lock")


def race(
    runtime: Runtime, lock: str, calls: list[Callable[[], httpx.Response]]
) -> list[httpx.Response]:
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        results[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    with holding(runtime, lock):
        for thread in threads:
            thread.start()
        wait_until_blocked(runtime, len(calls))
    for thread in threads:
        thread.join(30)
    return results


def test_two_first_time_webhook_puts(
    client: TestClient, auth: dict[str, str], runtime: Runtime
) -> None:
    def put(url: str) -> Callable[[], httpx.Response]:
        return lambda: client.put("/v1/webhooks", json={"url": url}, headers=auth)

    first, second = race(
        runtime,
        "LOCK TABLE webhook_targets IN EXCLUSIVE MODE",  # reads pass, inserts wait
        [put(URL), put(URL + "2")],
    )
    assert sorted([first.status_code, second.status_code]) == [200, 200], (
        first.text,
        second.text,
    )
    # Exactly one created the target and saw its secret; the other updated that target.
    shown = [r.json().get("new_signing_secret") for r in (first, second)]
    assert len([s for s in shown if s]) == 1
    config = client.get("/v1/webhooks", headers=auth).json()["webhook"]
    assert config["signing_secret"]["version"] == 1
    assert config["url"] in {URL, URL + "2"}


def test_two_rotations_at_once(client: TestClient, auth: dict[str, str], runtime: Runtime) -> None:
    assert client.put("/v1/webhooks", json={"url": URL}, headers=auth).status_code == 200

    def rotate() -> httpx.Response:
        return client.post("/v1/webhooks/rotate-signing-secret", headers=auth)

    first, second = race(
        runtime,
        # Lock the current secret row: both requests wait where they would retire it.
        "SELECT 1 FROM webhook_signing_secrets WHERE retired_at IS NULL FOR UPDATE",
        [rotate, rotate],
    )
    assert (first.status_code, second.status_code) == (200, 200), (first.text, second.text)
    versions = sorted(r.json()["webhook"]["signing_secret"]["version"] for r in (first, second))
    assert versions == [2, 3]  # one after the other
    current = client.get("/v1/webhooks", headers=auth).json()["webhook"]["signing_secret"]
    assert current["version"] == 3


def test_two_creates_of_the_same_source(
    client: TestClient, admin_auth: dict[str, str], runtime: Runtime
) -> None:
    def create() -> httpx.Response:
        return client.post(
            "/v1/admin/sources",
            json={"url": "https://example.com/feed.xml", "media_type": "news"},
            headers=admin_auth,
        )

    responses = race(runtime, "LOCK TABLE ingest_sources IN EXCLUSIVE MODE", [create, create])
    codes = sorted(r.status_code for r in responses)
    assert codes == [201, 400], [r.text for r in responses]
    [loser] = [r for r in responses if r.status_code == 400]
    assert loser.json()["error"] == "invalid_request"
    assert loser.json()["details"][0]["field"] == "url"
    listed = client.get("/v1/admin/sources", headers=admin_auth).json()["sources"]
    assert len(listed) == 1
