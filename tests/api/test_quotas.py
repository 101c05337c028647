"""Rate limits and quotas that keep one workspace from crowding out the others."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from herald.workspaces.service import create_key

HERALD = str(Path(sys.executable).with_name("herald"))


@pytest.fixture
def limited(
    home: Path, database_url: str, clock: FrozenClock
) -> Iterator[Callable[..., tuple[TestClient, dict[str, str]]]]:
    """An app with the given settings and a member key for it."""
    opened: list[tuple[Runtime, TestClient]] = []

    def build(**overrides: Any) -> tuple[TestClient, dict[str, str]]:
        settings = Settings(home=home, database_url=database_url, log_format="text", **overrides)
        runtime = Runtime(settings, clock=clock)
        with runtime.sessions.write() as session:
            key = create_key(session, workspace="acme", role="member", clock=clock)
        client = TestClient(create_app(runtime), raise_server_exceptions=False)
        opened.append((runtime, client))
        return client, {"x-api-key": key.api_key}

    yield build
    for runtime, client in opened:
        client.close()
        runtime.close()


def test_limits_are_on_by_default() -> None:
    defaults = Settings()
    assert defaults.rate_limit_per_minute > 0
    assert defaults.max_monitors_per_workspace > 0
    assert defaults.max_queued_backfill_dates > 0
    assert defaults.test_deliveries_per_minute > 0


def test_a_key_over_its_rate_gets_429_with_retry_after(limited: Callable[..., Any]) -> None:
    client, auth = limited(rate_limit_per_minute=5)
    statuses = [client.get("/v1/webhooks", headers=auth).status_code for _ in range(8)]
    assert statuses[:5] == [200] * 5
    assert 429 in statuses[5:]
    refused = client.get("/v1/webhooks", headers=auth)
    assert refused.json()["error"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= 12


def test_a_workspace_has_at_most_its_monitors(limited: Callable[..., Any]) -> None:
    client, auth = limited(max_monitors_per_workspace=2)
    made = [
        client.post("/v1/monitors", headers=auth, json={"name": f"m{i}", "search": {"query": "q"}})
        for i in range(3)
    ]
    assert [r.status_code for r in made] == [201, 201, 400]
    assert made[2].json()["error"] == "invalid_request"
    assert "the most it may have (2)" in made[2].json()["message"]


def test_waiting_run_now_and_backfill_dates_are_capped(limited: Callable[..., Any]) -> None:
    client, auth = limited(max_queued_backfill_dates=6)
    monitor = client.post(
        "/v1/monitors", headers=auth, json={"name": "m", "search": {"query": "q"}}
    ).json()
    dates = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"]
    ok = client.post(f"/v1/monitors/{monitor['id']}/backfills", headers=auth, json={"dates": dates})
    assert ok.status_code == 202
    over = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    assert over.status_code == 429
    assert over.json()["error"] == "rate_limited"
    assert over.headers["retry-after"] == "60"


def test_test_deliveries_are_limited_per_minute(limited: Callable[..., Any]) -> None:
    client, auth = limited(test_deliveries_per_minute=2)
    statuses = [client.post("/v1/webhooks/test", headers=auth).status_code for _ in range(3)]
    assert statuses[2] == 429
    assert 429 not in statuses[:2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("backend", ["postgres"])
def test_two_api_processes_on_postgresql_share_one_rate_limit(
    home: Path, database_url: str, tmp_path: Path
) -> None:
    runtime = Runtime(Settings(home=home, database_url=database_url))
    try:
        with runtime.sessions.write() as session:
            key = create_key(session, workspace="acme", role="member", clock=runtime.clock)
    finally:
        runtime.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": database_url,
        "HERALD_RATE_LIMIT_PER_MINUTE": "20",
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_LOG_FORMAT": "text",
    }
    ports = [_free_port(), _free_port()]
    log = (tmp_path / "serve.log").open("wb")
    processes = [
        subprocess.Popen(
            [HERALD, "serve", "--host", "127.0.0.1", "--port", str(port), "--no-worker"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for port in ports
    ]
    try:
        for port in ports:
            deadline = time.monotonic() + 90
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).is_success:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.2)
        started = time.monotonic()
        statuses = [
            httpx.get(
                f"http://127.0.0.1:{ports[i % 2]}/v1/webhooks",
                headers={"x-api-key": key.api_key},
                timeout=10,
            ).status_code
            for i in range(40)
        ]
        elapsed = time.monotonic() - started
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=20)
        log.close()
    allowed = statuses.count(200)
    # One bucket of 20 for both processes (plus what refills at 20/min while we ask), not 2 x 20.
    refilled = int(elapsed * 20 / 60) + 1
    assert 20 <= allowed <= 20 + refilled, (statuses, elapsed)
    assert allowed < 40
    assert statuses.count(429) == 40 - allowed


@pytest.mark.parametrize("backend", ["postgres"])
def test_the_shared_buckets_do_not_wait_for_the_write_ahead_log(runtime: Runtime) -> None:
    # Each request commits its token: an unlogged table's commit does not wait for a disk flush.
    with runtime.sessions.read() as session:
        persistence = session.execute(
            text("SELECT relpersistence FROM pg_class WHERE relname = 'rate_buckets'")
        ).scalar_one()
    assert persistence == "u"
