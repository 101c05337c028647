"""HERALD_ENTITY_KINDS=learned: enrichment, on a real database with the real recogniser, stores
the entities the kind model decides."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from herald.config import Settings
from herald.db.models.content import ContentEntity
from herald.db.models.entity import Entity
from herald.enrich.queueing import queue_enrichment
from herald.entities.service import seed_knowledge_base
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.enrich.factories import make_item

REPORT = (
    "Cricket - Somerset beat Kent",
    "Somerset beat Kent by six wickets in the county championship at Taunton on Friday. Kent"
    " were bowled out for 210 and Somerset reached their target with ten overs to spare.",
)


@pytest.fixture
def settings(home: Path, database_url: str, small_seed: Path) -> Settings:
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        entity_seed=str(small_seed),
        entity_kinds="learned",
    )


def test_enrichment_stores_the_clubs_of_a_match_report_as_organisations(
    enrich_runtime: Runtime,
) -> None:
    runtime = enrich_runtime
    seed_knowledge_base(runtime)
    with runtime.sessions.write() as session:
        now = runtime.clock.now()
        item = make_item(
            session, title=REPORT[0], body=REPORT[1], published_at=now - timedelta(hours=1), now=now
        )
        queue_enrichment(session, [item.id], clock=runtime.clock)
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        stored = session.execute(
            select(Entity.display_name, Entity.entity_kind)
            .join(ContentEntity, ContentEntity.entity_id == Entity.id)
            .where(ContentEntity.content_id == item.id)
        ).all()
    kinds = dict(stored)
    assert kinds.get("Somerset") == "organization"
    assert kinds.get("Kent") == "organization"
