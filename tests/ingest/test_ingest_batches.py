"""Large batches on both databases: band lookups and band writes in bulk (one array query and
one COPY on PostgreSQL), rows written with their change mark, and the same deduplication as item
by item: duplicates inside one batch and against stored items, updates, reprints of stored items
and of items earlier in the same batch."""

from __future__ import annotations

import json

from sqlalchemy import func, select

from herald.db.models.content import ContentItem
from herald.db.models.ingest import ContentFingerprint, FingerprintBand
from herald.db.models.job import Job
from herald.ingest.demo import demo_corpus_bytes
from herald.ingest.model import IncomingItem
from herald.ingest.normalize import item_from_mapping
from herald.ingest.service import store_items
from herald.ingest.syndication import fingerprint, is_syndicated
from herald.runtime import Runtime

STORIES = 30  # 30 x 42 band keys: more than one chunk of the item-by-item lookup (900)


def _distinct_stories() -> list[dict[str, str]]:
    """Demo articles of which no two are copies of one text (long enough for a fingerprint)."""
    corpus = [json.loads(line) for line in demo_corpus_bytes().splitlines()]
    chosen: list[dict[str, str]] = []
    prints = []
    for item in corpus:
        if item["media_type"] not in ("news", "wire") or len(item["body"]) < 350:
            continue
        fp = fingerprint(item["body"])
        if fp is None or any(is_syndicated(fp, other) for other in prints):
            continue
        chosen.append(item)
        prints.append(fp)
        if len(chosen) == STORIES:
            return chosen
    raise AssertionError("the demo corpus has too few distinct stories")


def _item(story: dict[str, str], url: str, title: str, body: str | None = None) -> IncomingItem:
    return item_from_mapping(
        {
            "url": url,
            "media_type": "news",
            "title": title,
            "published_date": "2026-11-20T10:00:00Z",
            "source": {"name": "Outlet", "domain": "outlet.example.com"},
            "body": story["body"] if body is None else body,
        }
    )


def _count(runtime: Runtime, model: type) -> int:
    with runtime.sessions.read() as session:
        return int(session.execute(select(func.count()).select_from(model)).scalar_one())


def test_a_large_batch_deduplicates_and_joins_articles_as_item_by_item(runtime: Runtime) -> None:
    stories = _distinct_stories()
    originals = [
        _item(s, f"https://a.example.com/{i}", f"Story {i}") for i, s in enumerate(stories)
    ]
    with runtime.sessions.write() as session:
        first = store_items(session, originals, clock=runtime.clock)
    assert first.accepted == STORIES
    assert first.syndicated == 0

    reprints = [
        _item(s, f"https://b.example.com/{i}", f"Reprint {i}") for i, s in enumerate(stories)
    ]
    correction = "Correction: an earlier version misspelt a name. " + stories[0]["body"][100:]
    edited = _item(stories[0], "https://a.example.com/0", "Story 0", correction)
    second_batch = [
        *reprints,  # copies of stored items: each joins its original's article
        reprints[1],  # the same entry twice in one batch: a duplicate
        originals[2],  # unchanged stored item: a duplicate
        edited,  # a changed stored item: updated, its bands replaced
        _item(stories[3], "https://c.example.com/3", "Second reprint"),  # copy of a batch item
    ]
    with runtime.sessions.write() as session:
        second = store_items(session, second_batch, clock=runtime.clock)
    assert (second.accepted, second.updated, second.duplicates) == (STORIES + 1, 1, 2)
    assert second.syndicated == STORIES + 1

    with runtime.sessions.read() as session:
        rows = {row.id: row for row in session.scalars(select(ContentItem))}
        jobs = session.execute(
            select(func.count()).select_from(Job).where(Job.kind == "enrich.item")
        ).scalar_one()
    assert len(rows) == 2 * STORIES + 1
    for i in range(1, STORIES):
        assert rows[reprints[i].content_id].article_id == rows[originals[i].content_id].article_id
    assert rows[reprints[0].content_id].article_id == rows[originals[0].content_id].article_id
    assert rows[second_batch[-1].content_id].article_id == rows[originals[3].content_id].article_id
    assert rows[edited.content_id].title == "Story 0"
    assert rows[edited.content_id].version == 2
    # Every row written by a batch carries that batch's change mark, later than the first's.
    first_seqs = {rows[o.content_id].change_seq for o in originals[1:]}
    second_seqs = {rows[i.content_id].change_seq for i in [*reprints, edited, second_batch[-1]]}
    assert len(first_seqs) == 1
    assert len(second_seqs) == 1
    assert min(second_seqs) > max(first_seqs) > 0
    assert jobs == 2 * STORIES + 1  # one per new item; the update re-queued the queued one
    fingerprints = _count(runtime, ContentFingerprint)
    assert fingerprints == 2 * STORIES + 1
    assert _count(runtime, FingerprintBand) == 42 * fingerprints
