"""Content deletion and retention on both databases, on content ingested through the operator
endpoint and enriched, indexed, clustered and captured by the real worker."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from herald.config import Settings
from herald.entities.service import seed_knowledge_base
from herald.runtime import Runtime
from tests.client.conftest import SMALL_SEED, run_jobs

# A phrase no other item, seed or model file holds: the purge check looks for it in every file.
PHRASE = "zelkova quartermaster ombudsprism"
WORDS = PHRASE.split()

ITEMS = [
    {
        "url": "https://news.example.com/2026/11/24/ecb-holds-rates",
        "media_type": "news",
        "title": "European Central Bank holds interest rates steady",
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": "Example News", "domain": "news.example.com"},
        "body": (
            "The European Central Bank left its key interest rates unchanged on Tuesday. "
            f"ECB President Christine Lagarde said the {PHRASE} was easing in the euro area. "
            "The European Central Bank will meet again in December to review the outlook. "
            "Markets in Frankfurt rose after the decision of the European Central Bank."
        ),
    },
    {
        "url": "https://wire.example.org/ecb-rates-unchanged",
        "media_type": "wire",
        "title": "European Central Bank keeps interest rates unchanged",
        "published_date": "2026-11-24T10:00:00Z",
        "source": {"name": "Example Wire", "domain": "wire.example.org"},
        "body": (
            "The European Central Bank kept its key interest rates unchanged on Tuesday. "
            "ECB President Christine Lagarde said inflation in the euro area was easing. "
            "The European Central Bank meets again in December. Markets in Frankfurt rose."
        ),
    },
    {
        "url": "https://daily.example.net/ecb-decision",
        "media_type": "news",
        "title": "ECB leaves interest rates steady as inflation eases",
        "published_date": "2026-11-24T11:00:00Z",
        "source": {"name": "Example Daily", "domain": "daily.example.net"},
        "body": (
            "The European Central Bank left interest rates steady on Tuesday. Christine Lagarde "
            "said inflation in the euro area was easing and the European Central Bank would "
            "review the outlook in December. Markets in Frankfurt rose after the decision."
        ),
    },
]


@pytest.fixture
def settings(home: Path, database_url: str) -> Settings:
    """The model-free embedder and a small entity seed keep enrichment quick."""
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        embedding_model="herald-hashing",
        entity_seed=str(SMALL_SEED),
    )


@pytest.fixture
def stored(runtime: Runtime, client: TestClient, admin_auth: dict[str, str]) -> list[str]:
    """The three items, enriched, indexed and clustered: their ids in ``ITEMS`` order."""
    assert seed_knowledge_base(runtime) == 7
    response = client.post("/v1/admin/content", json=ITEMS, headers=admin_auth)
    assert response.status_code == 200, response.text
    ids = list(response.json()["content_ids"])
    assert len(ids) == 3
    run_jobs(runtime)
    return ids


def files_holding(root: Path, needles: list[str]) -> list[str]:
    """Every file under ``root`` that contains one of ``needles`` (as UTF-8 bytes)."""
    wanted = [n.encode() for n in needles]
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            found.extend(f"{path.relative_to(root)}: {n.decode()}" for n in wanted if n in data)
    return found
