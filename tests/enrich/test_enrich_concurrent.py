"""An item updated by ingestion while its enrichment is being stored (SQLite and PostgreSQL):
the enrichment of the old version is not written over the new one, so what the new version
gives (its language, its summary) is kept, and the enrichment queued for it stores the new
version's results."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from herald.db.models.content import ContentItem
from herald.enrich.service import compute, store
from herald.ingest.service import store_items
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.content.blocking import Background, held_open, wait_until_blocked
from tests.ingest.conftest import ecbplus_item

OLD_SUMMARY = "Police named a suspect after the shooting."
NEW_SUMMARY = "The suspect was charged on Monday."


def test_an_update_stored_while_the_old_version_is_enriched_keeps_what_it_gives(
    enrich_runtime: Runtime,
) -> None:
    runtime = enrich_runtime
    first = ecbplus_item("29_1ecbplus", summary=OLD_SUMMARY)
    with runtime.sessions.write() as session:
        store_items(session, [first], clock=runtime.clock)
    content_id = first.content_id
    result, hashes = compute(runtime, [content_id])  # the models' work on the old text
    update = ecbplus_item(  # the source corrects its metadata: the language is given now
        "29_1ecbplus",
        summary=NEW_SUMMARY,
        title="Suspect charged after the shooting",
        language="de",
    )

    def ingest(session: Any) -> Any:
        return store_items(session, [update], clock=runtime.clock)

    with held_open(runtime, ingest) as ingesting:
        enrichment = Background(lambda: _store(runtime, result, hashes))
        enrichment.start()
        wait_until_blocked(runtime)
    assert ingesting.result.updated == 1
    assert enrichment.outcome() == []  # the row changed since it was read: not stored

    Worker(runtime).drain()  # the enrichment the update queued
    with runtime.sessions.read() as session:
        row = session.scalars(select(ContentItem).where(ContentItem.id == content_id)).one()
    assert row.title == "Suspect charged after the shooting"
    assert row.summary == NEW_SUMMARY
    assert row.language == "de"
    assert row.enriched_at is not None


def _store(runtime: Runtime, result: Any, hashes: Any) -> list[str]:
    with runtime.sessions.write() as session:
        return store(session, result, hashes, clock=runtime.clock)
