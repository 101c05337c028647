"""One real ``herald serve`` per test module, with a small real corpus, and MCP clients on it.

The data directory is prepared in-process (migrations, the 7-entity seed, keys of two
workspaces, a corpus ingested and enriched by the real pipeline, as ``herald ingest`` would), so
that only the server under test pays a process start-up. Its workers run the monitor jobs that
``run_monitor`` queues. ``connect`` opens the ``mcp`` SDK's own client over stdio (spawning
``herald mcp`` against the server) or over streamable HTTP (the server's ``/mcp``).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from herald.config import Settings
from herald.db.migrate import upgrade
from herald.entities.service import seed_knowledge_base
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.runtime import Runtime
from herald.workspaces.service import create_key
from tests.client.conftest import SMALL_SEED, run_jobs
from tests.serving import HERALD, herald_serve

TRANSPORTS = ["stdio", "http"]


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    acme_key: str  # workspace "acme"
    globex_key: str  # another workspace
    content_ids: list[str]

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"


def corpus(now: datetime) -> list[dict[str, Any]]:
    """Three reports of one ECB story from three sources, an Apple item and a podcast."""
    day = timedelta(days=1)

    def stamp(delta: timedelta) -> str:
        return (now - delta).strftime("%Y-%m-%dT%H:%M:%SZ")

    ecb = (
        "The European Central Bank left its key interest rates unchanged on Thursday. ECB "
        "President Christine Lagarde said inflation in the euro area was easing and that the "
        "European Central Bank would meet again in December to review the outlook. Markets in "
        "Frankfurt rose after the decision of the European Central Bank."
    )
    return [
        {
            "url": "https://news.example.com/ecb-holds-rates",
            "media_type": "news",
            "title": "European Central Bank holds interest rates steady",
            "published_date": stamp(day),
            "source": {"name": "Example News", "domain": "news.example.com"},
            "authors": ["A. Writer"],
            "body": ecb,
        },
        {
            "url": "https://wire.example.org/ecb-rates-unchanged",
            "media_type": "wire",
            "title": "ECB keeps interest rates unchanged, Lagarde sees easing inflation",
            "published_date": stamp(day + timedelta(hours=1)),
            "source": {"name": "Example Wire", "domain": "wire.example.org"},
            "body": ecb + " Analysts said the ECB could cut rates in the spring.",
        },
        {
            "url": "https://frankfurt.example.net/ecb-decision",
            "media_type": "news",
            "title": "European Central Bank leaves interest rates on hold in Frankfurt",
            "published_date": stamp(day + timedelta(hours=2)),
            "source": {"name": "Frankfurt Daily", "domain": "frankfurt.example.net"},
            "body": ecb + " Germany's exporters welcomed the decision.",
        },
        {
            "url": "https://tech.example.com/apple-results",
            "media_type": "news",
            "title": "Apple reports record iPhone sales, Tim Cook says",
            "published_date": stamp(2 * day),
            "source": {"name": "Example Tech", "domain": "tech.example.com"},
            "body": (
                "Apple Inc. reported record sales of the iPhone in the last quarter. Chief "
                "executive Tim Cook said demand in Europe was strong and that Apple would "
                "expand its services business next year."
            ),
        },
        {
            "url": "https://pod.example.com/episodes/central-banks",
            "media_type": "podcast",
            "title": "Central banks at a turning point",
            "published_date": stamp(2 * day + timedelta(hours=3)),
            "source": {"name": "Money Talk", "domain": "pod.example.com"},
            "podcast": {"title": "Money Talk", "publisher": "Example Media"},
            "episode_id": "ep-42",
            "transcript": (
                "Welcome to Money Talk. Today we look at the European Central Bank and the "
                "Federal Reserve. Christine Lagarde kept interest rates on hold, while the "
                "Federal Reserve is weighing a cut. Inflation is easing on both sides of the "
                "Atlantic, and markets expect lower rates next year."
            ),
        },
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("mcp")
    home = base / "home"
    home.mkdir()
    url = f"sqlite:///{home / 'herald.db'}"
    settings = Settings(
        home=home, database_url=url, entity_seed=str(SMALL_SEED), embedding_model="herald-hashing"
    )
    upgrade(url)
    runtime = Runtime(settings)
    try:
        seed_knowledge_base(runtime)
        with runtime.sessions.write() as session:
            acme = create_key(session, workspace="acme", role="member", clock=runtime.clock)
            globex = create_key(session, workspace="globex", role="member", clock=runtime.clock)
        body = "\n".join(json.dumps(item) for item in corpus(runtime.clock.now()))
        outcomes = JsonLinesAdapter().parse(Document(content=body.encode(), origin="corpus"))
        report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock, chunk_size=100)
        assert report.accepted == 5, report
        run_jobs(runtime)  # enrichment, indexing and story clustering
    finally:
        runtime.close()

    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": url,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": str(SMALL_SEED),
        "HERALD_LOG_FORMAT": "text",
    }
    with herald_serve([], env=env, log_path=base / "serve.log") as (base_url, _process):
        yield RunningServer(base_url, acme.api_key, globex.api_key, report.changed_ids)


Connect = Callable[[str, str], AbstractAsyncContextManager[Client]]


@pytest.fixture
def connect(server: RunningServer) -> Connect:
    """``connect(transport, key)``: an initialized MCP client acting with that key."""

    @asynccontextmanager
    async def _connect(transport: str, key: str) -> AsyncIterator[Client]:
        if transport == "stdio":
            env = {"HERALD_BASE_URL": server.base_url, "HERALD_API_KEY": key}
            # The SDK passes only a safe set of variables; the code under test must be ours.
            if "PYTHONPATH" in os.environ:
                env["PYTHONPATH"] = os.environ["PYTHONPATH"]
            params = StdioServerParameters(command=HERALD, args=["mcp"], env=env)
            async with Client(params, read_timeout_seconds=60) as client:
                yield client
        else:
            async with (
                httpx2.AsyncClient(headers={"x-api-key": key}, timeout=60) as http,
                Client(streamable_http_client(server.mcp_url, http_client=http)) as client,
            ):
                yield client

    return _connect


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
