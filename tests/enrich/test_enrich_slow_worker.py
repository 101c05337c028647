"""A slow worker: its lease on an enrichment job expires while it computes, another worker takes
the job over and finishes it, then the first one stores (SQLite and PostgreSQL). Its results do
not commit (the job is no longer leased to it), and what the item holds is one run's results:
no entity link or mention counted twice, one embedding, no job left."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentEmbedding, ContentEntity
from herald.db.models.job import Job
from herald.enrich.tasks import handle_enrich
from herald.ingest.service import store_items
from herald.jobs import queue
from herald.jobs.queue import LeaseLost
from herald.jobs.worker import JobContext, Worker
from herald.runtime import Runtime
from tests.ingest.conftest import ecbplus_item


def _links(runtime: Runtime, content_id: str) -> list[tuple[str, int]]:
    with runtime.sessions.read() as session:
        return sorted(
            (str(entity_id), int(mentions))
            for entity_id, mentions in session.execute(
                select(ContentEntity.entity_id, ContentEntity.mention_count).where(
                    ContentEntity.content_id == content_id
                )
            )
        )


def test_a_slow_workers_enrichment_after_a_takeover_changes_nothing(
    enrich_runtime: Runtime, clock: FrozenClock
) -> None:
    runtime = enrich_runtime
    item = ecbplus_item("29_1ecbplus")
    with runtime.sessions.write() as session:
        store_items(session, [item], clock=clock)
    with runtime.sessions.write() as session:
        [slow] = queue.claim(
            session, lane="default", worker_id="slow", clock=clock, lease_seconds=60
        )
    clock.advance(timedelta(seconds=61))  # the slow worker missed its lease
    assert Worker(runtime).drain() >= 1  # another worker takes the job over and finishes it
    links = _links(runtime, item.content_id)
    assert links

    with pytest.raises(LeaseLost):
        handle_enrich(JobContext(runtime=runtime, worker_id="slow"), [slow])
    assert _links(runtime, item.content_id) == links
    with runtime.sessions.read() as session:
        embeddings = session.scalar(
            select(func.count())
            .select_from(ContentEmbedding)
            .where(ContentEmbedding.content_id == item.content_id)
        )
        jobs = session.scalar(
            select(func.count()).select_from(Job).where(Job.kind == "enrich.item")
        )
    assert (embeddings, jobs) == (1, 0)
