"""A real Herald API on loopback for the operator commands, on SQLite and on PostgreSQL.

``served`` migrates the test database, loads the 7-entity seed, ingests and enriches a small
corpus with the real pipeline, then serves the real app with uvicorn on a free loopback port,
with a real worker running jobs in the background (as `herald serve` does). Webhook deliveries
trust a test CA, and a real HTTPS receiver on loopback answers them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
import trustme

from herald.api.app import create_app
from herald.config import Settings
from herald.core.net import SafeHttpsClient, TargetPolicy
from herald.entities.service import seed_knowledge_base
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.jobs.registry import load_handlers
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from herald.webhooks.delivery import Sender
from herald.workspaces.service import create_key
from tests.client.conftest import SMALL_SEED, run_jobs
from tests.serving import uvicorn_thread
from tests.webhooks.webhook_receiver import HttpsReceiver


@dataclass(frozen=True)
class Served:
    base_url: str
    api_key: str  # a member key of workspace "acme"
    other_key: str  # a member key of workspace "globex"
    settings: Settings
    receiver: HttpsReceiver

    def env(self, key: str | None = None) -> dict[str, str]:
        """What an operator's shell holds: the data directory, the address, the key."""
        return {
            "HERALD_HOME": str(self.settings.home),
            "HERALD_DATABASE_URL": self.settings.resolved_database_url,
            "HERALD_BASE_URL": self.base_url,
            "HERALD_API_KEY": key or self.api_key,
        }


def corpus(runtime: Runtime) -> bytes:
    now = runtime.clock.now()
    items = [
        ("https://news.example.com/quake", "Earthquake shakes the coast of Chile", "news", 1),
        (
            "https://wire.example.org/quake",
            "Strong earthquake hits Chile, buildings damaged",
            "wire",
            2,
        ),
        ("https://news.example.com/ecb", "European Central Bank holds interest rates", "news", 3),
    ]
    lines = [
        {
            "url": url,
            "media_type": media_type,
            "title": title,
            "published_date": (now - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "source": {"name": "Example", "domain": url.split("/")[2]},
            "body": f"{title}. " * 5,
        }
        for url, title, media_type, days in items
    ]
    return "\n".join(json.dumps(line) for line in lines).encode()


@pytest.fixture
def cli_settings(home: Path, database_url: str) -> Settings:
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        webhook_allow_networks="127.0.0.0/8",
        embedding_model="herald-hashing",
        entity_seed=str(SMALL_SEED),
    )


@pytest.fixture
def served(cli_settings: Settings, tmp_path: Path) -> Iterator[Served]:
    runtime = Runtime(cli_settings)
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    client = SafeHttpsClient(
        TargetPolicy(cli_settings.allowed_webhook_networks), ca_file=str(ca_file), timeout=5.0
    )
    runtime.on_close(client.close)
    runtime.service("webhooks.sender", lambda: Sender(client, runtime.clock))
    seed_knowledge_base(runtime)
    with runtime.sessions.write() as session:
        acme = create_key(session, workspace="acme", role="member", clock=runtime.clock)
        globex = create_key(session, workspace="globex", role="member", clock=runtime.clock)
    outcomes = JsonLinesAdapter().parse(Document(content=corpus(runtime), origin="corpus"))
    report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock, chunk_size=100)
    assert report.accepted == 3, report
    run_jobs(runtime)  # enrichment, indexing, clustering
    load_handlers()
    worker = Worker(runtime)
    worker.start()
    try:
        with (
            uvicorn_thread(create_app(runtime)) as base_url,
            HttpsReceiver(ca, names=("127.0.0.1",)) as receiver,
        ):
            yield Served(base_url, acme.api_key, globex.api_key, cli_settings, receiver)
    finally:
        worker.stop()
        runtime.close()
