"""The client against a real ``herald serve`` process on a loopback port, over real HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
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

HERALD = str(Path(sys.executable).with_name("herald"))


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    api_key: str
    process: subprocess.Popen[bytes]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    port = _free_port()
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(
        [HERALD, "serve", "--host", "127.0.0.1", "--port", str(port), "--no-worker"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                pytest.fail(f"herald serve exited: {(tmp_path / 'serve.log').read_text()}")
            try:
                if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("herald serve did not answer /healthz within 90 s")
            time.sleep(0.2)
        yield RunningServer(base_url, api_key, process)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        log.close()


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
