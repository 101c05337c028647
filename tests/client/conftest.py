"""The client against the real Herald app, in-process (both backends, via the shared conftest).

``herald`` is a ``herald_client.Client`` whose transport drives the ASGI app on a background
event loop (so the sync client is exercised exactly as shipped); ``aherald`` is an
``AsyncClient`` over ``httpx.ASGITransport``. ``herald_other`` holds a key of another workspace.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio.from_thread
import herald_client
import httpx
import pytest
import trustme
from anyio.from_thread import BlockingPortal
from fastapi import FastAPI

from herald.config import Settings
from herald.core.net import SafeHttpsClient, TargetPolicy
from herald.entities.service import seed_knowledge_base
from herald.jobs.registry import lanes, load_handlers
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from herald.webhooks.delivery import Sender
from herald.workspaces.service import CreatedKey

BASE_URL = "http://herald.test"
# A 7-entity seed (see data/README.md): the bundled 40k-entity seed takes a minute to load.
SMALL_SEED = Path(__file__).parent / "data" / "entities-seed.jsonl"


class SyncASGITransport(httpx.BaseTransport):
    """A blocking httpx transport for an ASGI app: ``httpx.ASGITransport`` on a portal loop."""

    def __init__(self, app: Any) -> None:
        self._inner = httpx.ASGITransport(app=app)
        self._portal_cm: AbstractContextManager[BlockingPortal] = (
            anyio.from_thread.start_blocking_portal()
        )
        self._portal = self._portal_cm.__enter__()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def send() -> tuple[int, httpx.Headers, bytes]:
            response = await self._inner.handle_async_request(request)
            body = await response.aread()
            return response.status_code, response.headers, body

        status, headers, body = self._portal.call(send)
        return httpx.Response(status, headers=headers, content=body, request=request)

    def close(self) -> None:
        self._portal_cm.__exit__(None, None, None)


@pytest.fixture
def settings(home: Path, database_url: str) -> Settings:
    """Loopback webhook receivers admitted as for local development; the model-free embedder
    keeps enrichment fast (the client does not care which embedder ranks results), and a small
    entity seed keeps the knowledge base quick to load."""
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        webhook_allow_networks="127.0.0.0/8",
        embedding_model="herald-hashing",
        entity_seed=str(SMALL_SEED),
    )


def _client(app: FastAPI, key: str, **options: Any) -> herald_client.Client:
    options.setdefault("retry_backoff", 0.0)
    return herald_client.Client(
        base_url=BASE_URL, api_key=key, transport=SyncASGITransport(app), **options
    )


def run_jobs(runtime: Runtime) -> None:
    """Run every due job of every lane (enrichment, indexing, clustering, monitors) until none
    is left, as `herald serve`'s workers would."""
    load_handlers()
    worker = Worker(runtime)
    while sum(worker.drain(lane) for lane in sorted(lanes())) > 0:
        pass


@pytest.fixture
def seeded(runtime: Runtime) -> Runtime:
    """The runtime with the small entity seed loaded (as `herald serve` does at start; API
    requests never seed)."""
    assert seed_knowledge_base(runtime) == 7
    return runtime


@pytest.fixture
def herald(app: FastAPI, member_key: CreatedKey) -> Iterator[herald_client.Client]:
    with _client(app, member_key.api_key) as client:
        yield client


@pytest.fixture
def herald_other(app: FastAPI, make_key: Any) -> Iterator[herald_client.Client]:
    with _client(app, make_key("globex", "member").api_key) as client:
        yield client


@pytest.fixture
def herald_admin(app: FastAPI, admin_key: CreatedKey) -> Iterator[httpx.Client]:
    """Raw httpx with an admin key, for operator endpoints the client does not cover."""
    with httpx.Client(
        base_url=BASE_URL,
        transport=SyncASGITransport(app),
        headers={"x-api-key": admin_key.api_key},
    ) as client:
        yield client


@pytest.fixture
async def aherald(app: FastAPI, member_key: CreatedKey) -> AsyncIterator[herald_client.AsyncClient]:
    async with herald_client.AsyncClient(
        base_url=BASE_URL,
        api_key=member_key.api_key,
        transport=httpx.ASGITransport(app=app),
        retry_backoff=0.0,
    ) as client:
        yield client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def trusting_sender(runtime: Runtime, ca: trustme.CA, tmp_path: Path) -> Sender:
    """The runtime's webhook sender, trusting the test CA (registered before first use)."""
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    client = SafeHttpsClient(
        TargetPolicy(runtime.settings.allowed_webhook_networks), ca_file=str(ca_file), timeout=5.0
    )
    runtime.on_close(client.close)
    sender = Sender(client, runtime.clock)
    assert runtime.service("webhooks.sender", lambda: sender) is sender
    return sender
