"""HERALD_ENTITY_ADMISSION: enrichment, on a real database with the real recogniser, admits the
names the rules leave out at the operator's threshold (1 admits none)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from herald.config import Settings
from herald.db.models.content import ContentEntity
from herald.db.models.entity import Entity
from herald.enrich.queueing import queue_enrichment
from herald.entities.linking import LinkingConfig
from herald.entities.service import seed_knowledge_base
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.enrich.factories import make_item
from tests.entities.test_admission import CLUBS, STANDINGS


@pytest.fixture
def backend() -> str:
    return "sqlite"  # the setting reaches the linker the same way on either database


@pytest.fixture(params=[None, 1.0], ids=["default", "none"])
def settings(
    request: pytest.FixtureRequest, home: Path, database_url: str, small_seed: Path
) -> Settings:
    chosen = {} if request.param is None else {"entity_admission": request.param}
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        entity_seed=str(small_seed),
        **chosen,
    )


def test_the_setting_decides_which_clubs_of_a_results_table_are_stored(
    enrich_runtime: Runtime, settings: Settings
) -> None:
    runtime = enrich_runtime
    seed_knowledge_base(runtime)
    title, _, body = STANDINGS.partition("\n\n")
    with runtime.sessions.write() as session:
        now = runtime.clock.now()
        item = make_item(
            session, title=title, body=body, published_at=now - timedelta(hours=1), now=now
        )
        queue_enrichment(session, [item.id], clock=runtime.clock)
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        stored = dict(
            session.execute(
                select(Entity.display_name, ContentEntity.confidence)
                .join(ContentEntity, ContentEntity.entity_id == Entity.id)
                .where(ContentEntity.content_id == item.id)
            ).all()
        )
    clubs = {name: stored[name] for name in CLUBS if name in stored}
    if settings.entity_admission == 1.0:
        assert clubs == {}
    else:
        assert settings.entity_admission == LinkingConfig().admission_threshold  # one default
        assert len(clubs) >= 3
        assert all(confidence >= settings.entity_admission for confidence in clubs.values())
