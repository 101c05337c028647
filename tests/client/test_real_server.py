"""The client against a real ``herald serve`` process on a loopback port, over real HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import herald_client
import httpx
import pytest

from herald.config import Settings
from herald.db.migrate import upgrade
from herald.entities.service import seed_knowledge_base
from herald.runtime import Runtime
from herald.workspaces.service import create_key
from tests.client.conftest import SMALL_SEED
from tests.serving import herald_serve


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    api_key: str
    process: subprocess.Popen[bytes]


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": f"sqlite:///{home / 'herald.db'}",
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": str(SMALL_SEED),
        "HERALD_LOG_FORMAT": "text",
    }
    return env


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    home = tmp_path / "home"
    home.mkdir()
    env = _environment(home)
    # Prepared in-process (what `herald db upgrade`, `herald entities seed` and `herald keys
    # create` do) so that only the server under test pays a process start-up.
    settings = Settings(
        home=home,
        database_url=env["HERALD_DATABASE_URL"],
        entity_seed=str(SMALL_SEED),
        embedding_model="herald-hashing",
    )
    upgrade(env["HERALD_DATABASE_URL"])
    runtime = Runtime(settings)
    try:
        seed_knowledge_base(runtime)
        with runtime.sessions.write() as session:
            api_key = create_key(
                session, workspace="acme", role="member", clock=runtime.clock
            ).api_key
    finally:
        runtime.close()
    with herald_serve(["--no-worker"], env=env, log_path=tmp_path / "serve.log") as (
        base_url,
        process,
    ):
        yield RunningServer(base_url, api_key, process)


@pytest.mark.slow
def test_the_client_against_herald_serve(server: RunningServer) -> None:
    with herald_client.Client(
        base_url=server.base_url, api_key=server.api_key, timeout=30
    ) as client:
        monitor = client.monitors.create(
            name="Ports", search={"query": "container shipping"}, schedule={"frequency": "hourly"}
        )
        assert monitor.id.startswith("mon_")
        assert client.monitors.get(monitor.id).name == "Ports"
        assert [m.id for m in client.monitors.list_all()] == [monitor.id]
        task = client.monitors.run(monitor.id)
        assert task.summary.requested == 4
        assert client.webhooks.get().configured is False
        found = client.entities.search(query="European Central Bank", limit=1)
        assert found.results[0].entity.display_name == "European Central Bank"

        with pytest.raises(herald_client.NotFoundError) as missing:
            client.monitors.get("mon_missing")
        # The request id in the error is the one the server logged and sent as a header.
        assert missing.value.request_id == missing.value.response.headers["x-request-id"]
        with pytest.raises(herald_client.InvalidTimezoneError):
            client.monitors.create(
                name="x", search={"query": "q"}, schedule={"timezone": "Nowhere"}
            )

    with (
        herald_client.Client(base_url=server.base_url, api_key="wrong") as stranger,
        pytest.raises(herald_client.AuthenticationError),
    ):
        stranger.monitors.list()

    async def use_async() -> list[str]:
        async with herald_client.AsyncClient(
            base_url=server.base_url, api_key=server.api_key
        ) as aclient:
            return [m.id async for m in aclient.monitors.list_all()]

    assert anyio.run(use_async) == [monitor.id]

    # Once the server is gone, reads fail with a connection error after their retries.
    server.process.terminate()
    server.process.wait(timeout=20)
    with (
        herald_client.Client(
            base_url=server.base_url, api_key=server.api_key, max_retries=1, retry_backoff=0.01
        ) as client,
        pytest.raises(herald_client.APIConnectionError),
    ):
        client.monitors.get(monitor.id)


def _raw_exchange(base_url: str, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send ``request`` as is on a new connection; the status line, headers and body back."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


@pytest.mark.slow
def test_http_edges_against_herald_serve(server: RunningServer) -> None:
    """What uvicorn would answer itself, and what the router would get half right."""
    too_long = b"GET /v1/monitors?q=" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    for request in (too_long, b"NOT AN HTTP REQUEST\r\n\r\n"):
        status, headers, body = _raw_exchange(server.base_url, request)
        assert status == "HTTP/1.1 400 Bad Request", (status, body[:200])
        assert headers["content-type"] == "application/json"
        error = httpx.Response(400, content=body).json()
        assert error["error"] == "invalid_request"
        assert body == json.dumps(error, separators=(",", ":")).encode()  # as every error body
        assert error["meta"]["request_id"] == headers["x-request-id"]

    auth = {"x-api-key": server.api_key}
    created = httpx.post(
        f"{server.base_url}/v1/monitors", json={"name": "n", "search": {"query": "q"}}, headers=auth
    )
    one = f"{server.base_url}/v1/monitors/{created.json()['id']}"
    got, head = httpx.get(one, headers=auth), httpx.head(one, headers=auth)
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-length"] == got.headers["content-length"]
    assert httpx.head(f"{server.base_url}/v1/monitors/mon_missing", headers=auth).status_code == 404
    refused = httpx.put(one, json={}, headers=auth)
    assert refused.status_code == 405
    assert refused.json()["error"] == "method_not_allowed"
    assert refused.headers["allow"] == "DELETE, GET, HEAD, PATCH"
    listing = httpx.delete(f"{server.base_url}/v1/monitors", headers=auth)
    assert listing.headers["allow"] == "GET, HEAD, POST"
