"""Deleting an item while its enrichment is being stored, in either order (SQLite and
PostgreSQL): whichever commits first, no summary, entity link, embedding, name or search entry of
the deleted item is left, and the enrichment job does not fail for good."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.content.deletion import ContentSelector, delete_content, delete_items
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.db.models.entity import ContentName
from herald.db.models.job import Job
from herald.enrich.service import compute, store
from herald.entities.service import seed_knowledge_base
from herald.ingest.normalize import item_from_mapping as incoming
from herald.ingest.service import store_items
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.content.blocking import Background, held_open, wait_until_blocked
from tests.content.conftest import ITEMS, PHRASE
from tests.content.test_deletion_api import _search


def _ingested(runtime: Runtime, client: TestClient, admin_auth: dict[str, str]) -> str:
    assert seed_knowledge_base(runtime) == 7
    response = client.post("/v1/admin/content", json=ITEMS[:1], headers=admin_auth)
    assert response.status_code == 200, response.text
    [content_id] = response.json()["content_ids"]
    return str(content_id)


def _delete(runtime: Runtime, content_id: str) -> Any:
    return delete_content(
        runtime.sessions, ContentSelector(content_id=content_id), actor="test", clock=runtime.clock
    )


def _nothing_left(runtime: Runtime, content_id: str) -> None:
    with runtime.sessions.read() as session:
        for model in (ContentItem, ContentEntity, ContentEmbedding, ContentName):
            column = model.id if model is ContentItem else model.content_id  # type: ignore[attr-defined]
            count = session.scalar(
                select(func.count()).select_from(model).where(column == content_id)
            )
            assert count == 0, model.__tablename__
        failed = session.scalar(select(func.count()).select_from(Job).where(Job.status == "failed"))
        assert failed == 0


@pytest.mark.parametrize("first", ["enrichment", "deletion"])
def test_an_item_deleted_while_its_enrichment_is_stored(
    runtime: Runtime,
    client: TestClient,
    admin_auth: dict[str, str],
    auth: dict[str, str],
    first: str,
) -> None:
    content_id = _ingested(runtime, client, admin_auth)
    result, hashes = compute(runtime, [content_id])  # the models' work, read before the deletion
    assert [item.content_id for item in result.items] == [content_id]

    def enrich(session: Any) -> list[str]:
        return store(session, result, hashes, clock=runtime.clock)

    if first == "enrichment":
        with held_open(runtime, enrich) as held:
            deletion = Background(lambda: _delete(runtime, content_id))
            deletion.start()
            wait_until_blocked(runtime)
        assert held.result == [content_id]
        assert deletion.outcome().deleted == 1
    else:
        deleting = lambda session: delete_items(session, [content_id], now=runtime.clock.now())  # noqa: E731
        with held_open(runtime, deleting):
            enrichment = Background(lambda: _store_again(runtime, enrich))
            enrichment.start()
            wait_until_blocked(runtime)
        assert enrichment.outcome() in ([], "failed")  # skipped, or failed and retried later
    run_jobs(runtime)  # what the enrichment queued (indexing, clustering), and any retry
    _nothing_left(runtime, content_id)
    assert _search(client, auth, PHRASE) == []


def _store_again(runtime: Runtime, enrich: Any) -> Any:
    try:
        with runtime.sessions.write() as session:
            return enrich(session)
    except Exception:  # the job would record the failure and retry
        return "failed"


def test_an_item_that_stops_matching_while_a_deletion_waits_for_it_is_kept(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    """Retention (or a deletion by date or domain) chose an item, then waited for its row while
    ingestion stored a corrected version that no longer matches (a later publication date): the
    item is kept, not deleted by the id chosen from its old version."""
    old = dict(ITEMS[0], published_date="2025-01-10T09:00:00Z")
    response = client.post("/v1/admin/content", json=[old], headers=admin_auth)
    assert response.status_code == 200, response.text
    [content_id] = response.json()["content_ids"]
    corrected = incoming(dict(ITEMS[0]))  # published 2026-11-24
    cutoff = ContentSelector(published_before=datetime(2026, 1, 1, tzinfo=UTC))

    def ingest(session: Any) -> Any:
        return store_items(session, [corrected], clock=runtime.clock)

    with held_open(runtime, ingest) as ingesting:
        deletion = Background(
            lambda: delete_content(runtime.sessions, cutoff, actor="test", clock=runtime.clock)
        )
        deletion.start()
        wait_until_blocked(runtime)
    assert ingesting.result.updated == 1
    assert deletion.outcome().deleted == 0
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, content_id)
        assert row is not None
        assert row.published_at == datetime(2026, 11, 24, 9, tzinfo=UTC)
