"""The same item stored by two transactions at once (two `herald ingest` processes, a poll and
an import), on SQLite and PostgreSQL: one row, every other item of both batches stored, one
enrichment job, and an update that arrives meanwhile is not lost."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from herald.db.models.content import ContentItem
from herald.db.models.ingest import ContentFingerprint
from herald.db.models.job import Job
from herald.ingest.service import store_items
from herald.runtime import Runtime
from tests.content.blocking import Background, held_open, wait_until_blocked

from .conftest import ecbplus_item


def _rows(runtime: Runtime) -> dict[str, ContentItem]:
    with runtime.sessions.read() as session:
        return {row.id: row for row in session.scalars(select(ContentItem))}


def _store_in_background(runtime: Runtime, items: list[Any]) -> Background:
    def store() -> Any:
        with runtime.sessions.write() as session:
            return store_items(session, items, clock=runtime.clock)

    thread = Background(store)
    thread.start()
    return thread


def test_two_batches_storing_the_same_new_item_at_once(runtime: Runtime) -> None:
    shared, other = ecbplus_item("29_1ecbplus"), ecbplus_item("24_5ecbplus")

    def first(session: Any) -> Any:
        return store_items(session, [shared], clock=runtime.clock)

    with held_open(runtime, first) as held:
        second = _store_in_background(runtime, [shared, other])
        wait_until_blocked(runtime)
    report = second.outcome()
    assert held.result.accepted == 1
    assert (report.accepted, report.duplicates) == (1, 1)
    rows = _rows(runtime)
    assert sorted(rows) == sorted([shared.content_id, other.content_id])
    assert rows[shared.content_id].version == 1
    with runtime.sessions.read() as session:
        fingerprints = list(session.scalars(select(ContentFingerprint.content_id)))
        jobs = list(session.scalars(select(Job.payload).where(Job.kind == "enrich.item")))
    assert sorted(fingerprints) == sorted(rows)
    assert sorted(job["content_id"] for job in jobs) == sorted(rows)


def test_an_update_stored_while_another_batch_stores_the_item_is_kept(runtime: Runtime) -> None:
    original = ecbplus_item("29_1ecbplus")
    with runtime.sessions.write() as session:
        store_items(session, [original], clock=runtime.clock)
    first_edit = ecbplus_item("29_1ecbplus", title="First correction")
    second_edit = ecbplus_item("29_1ecbplus", title="Second correction")

    def first(session: Any) -> Any:
        return store_items(session, [first_edit], clock=runtime.clock)

    with held_open(runtime, first):
        second = _store_in_background(runtime, [second_edit])
        wait_until_blocked(runtime)
    assert second.outcome().updated == 1
    row = _rows(runtime)[original.content_id]
    assert row.title == "Second correction"
    assert row.version == 3  # two updates, each counted
