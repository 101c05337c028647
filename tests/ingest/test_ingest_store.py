"""Storing items on SQLite and PostgreSQL: upsert, duplicates, updates, syndication, jobs."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

from sqlalchemy import delete, func, select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.db.models.ingest import ContentFingerprint, FingerprintBand
from herald.db.models.job import Job
from herald.ingest.model import IncomingItem, SourceRef
from herald.ingest.normalize import item_from_mapping
from herald.ingest.pipeline import ingest_outcomes, parse_document
from herald.ingest.service import store_items
from herald.ingest.sources import Document
from herald.runtime import Runtime

from .conftest import ecbplus_docs, ecbplus_item

DOCS = ecbplus_docs()


def _store(runtime: Runtime, items: list[IncomingItem]):  # type: ignore[no-untyped-def]
    with runtime.sessions.write() as session:
        return store_items(session, items, clock=runtime.clock)


def _rows(runtime: Runtime) -> dict[str, ContentItem]:
    with runtime.sessions.read() as session:
        return {row.id: row for row in session.scalars(select(ContentItem))}


def _jobs(runtime: Runtime, kind: str = "enrich.item") -> list[Job]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(Job).where(Job.kind == kind)))


def test_new_items_are_stored_with_marks_and_enrichment_jobs(runtime: Runtime) -> None:
    report = _store(runtime, [ecbplus_item("29_1ecbplus"), ecbplus_item("24_5ecbplus")])
    assert (report.accepted, report.updated, report.duplicates) == (2, 0, 0)
    rows = _rows(runtime)
    assert len(rows) == 2
    row = rows[ecbplus_item("29_1ecbplus").content_id]
    assert row.source_domain == "yahoo.com"
    assert row.published_at.tzinfo is not None
    assert row.change_seq > 0
    assert row.word_count > 800
    assert row.article_id
    assert row.article_id.startswith("art_")
    assert row.summaries == []
    assert row.key_points == []
    assert row.enriched_at is None
    jobs = _jobs(runtime)
    assert sorted(j.payload["content_id"] for j in jobs) == sorted(rows)
    assert {j.unique_key for j in jobs} == {f"enrich:{cid}" for cid in rows}


def test_reingesting_changes_nothing(runtime: Runtime) -> None:
    _store(runtime, [ecbplus_item("29_1ecbplus")])
    before = _rows(runtime)[ecbplus_item("29_1ecbplus").content_id]
    # The enrichment job ran meanwhile (simulated: the queue is empty again).
    with runtime.sessions.write() as session:
        session.query(Job).delete()
    assert isinstance(runtime.clock, FrozenClock)
    runtime.clock.advance(timedelta(hours=1))
    report = _store(runtime, [ecbplus_item("29_1ecbplus"), ecbplus_item("29_1ecbplus")])
    assert (report.accepted, report.updated, report.duplicates) == (0, 0, 2)
    after = _rows(runtime)[before.id]
    assert (after.updated_at, after.change_seq, after.version) == (
        before.updated_at,
        before.change_seq,
        before.version,
    )
    assert _jobs(runtime) == []


def test_an_updated_article_replaces_its_earlier_version(runtime: Runtime) -> None:
    _store(runtime, [ecbplus_item("29_1ecbplus")])
    first = _rows(runtime)[ecbplus_item("29_1ecbplus").content_id]
    assert isinstance(runtime.clock, FrozenClock)
    runtime.clock.advance(timedelta(minutes=5))
    updated = ecbplus_item(
        "29_1ecbplus",
        url=DOCS["29_1ecbplus"]["source_url"] + "?utm_source=twitter",
        title="UPDATED: Colts beat Chiefs 20-13 to clinch playoff berth",
        summary="Andrew Luck led the Colts into the playoffs.",
    )
    report = _store(runtime, [updated])
    assert (report.accepted, report.updated) == (0, 1)
    rows = _rows(runtime)
    assert len(rows) == 1
    row = rows[first.id]
    assert row.title.startswith("UPDATED:")
    assert row.version == 2
    assert row.created_at == first.created_at
    assert row.updated_at > first.updated_at
    assert row.summary == "Andrew Luck led the Colts into the playoffs."
    assert row.summary_provided
    assert row.change_seq > first.change_seq
    assert row.article_id == first.article_id


def test_reprints_share_an_article_and_keep_their_items(runtime: Runtime) -> None:
    _store(runtime, [ecbplus_item("29_1ecbplus")])
    report = _store(
        runtime,
        [ecbplus_item("29_5ecbplus"), ecbplus_item("29_9ecbplus"), ecbplus_item("24_5ecbplus")],
    )
    assert report.accepted == 3
    assert report.syndicated == 2
    rows = _rows(runtime)
    articles = {
        rows[ecbplus_item(d).content_id].article_id
        for d in ("29_1ecbplus", "29_5ecbplus", "29_9ecbplus")
    }
    assert len(articles) == 1
    assert rows[ecbplus_item("24_5ecbplus").content_id].article_id not in articles
    assert len(rows) == 4
    with runtime.sessions.read() as session:
        assert (
            session.execute(select(func.count()).select_from(ContentFingerprint)).scalar_one() == 4
        )


def _bands(runtime: Runtime) -> dict[str, int]:
    """Band keys stored per content id."""
    counts = select(FingerprintBand.content_id, func.count().label("n")).group_by(
        FingerprintBand.content_id
    )
    with runtime.sessions.read() as session:
        return {row.content_id: row.n for row in session.execute(counts)}


def test_deleting_an_item_deletes_its_fingerprint_and_band_keys(runtime: Runtime) -> None:
    kept, deleted, updated = (
        ecbplus_item("29_1ecbplus"),
        ecbplus_item("29_5ecbplus"),
        ecbplus_item("24_5ecbplus"),
    )
    _store(runtime, [kept, deleted, updated])
    assert _bands(runtime) == {kept.content_id: 42, deleted.content_id: 42, updated.content_id: 42}
    # A new version replaces the item's band keys; deleting the row (retention, a purge) drops
    # its fingerprint and, with it, its band keys.
    _store(runtime, [dataclasses.replace(updated, body=DOCS["24_1ecbplus"]["text"])])
    with runtime.sessions.write() as session:
        session.execute(delete(ContentItem).where(ContentItem.id == deleted.content_id))
    assert _bands(runtime) == {kept.content_id: 42, updated.content_id: 42}
    with runtime.sessions.read() as session:
        stored = set(session.scalars(select(ContentFingerprint.content_id)))
    assert stored == {kept.content_id, updated.content_id}
    # The reprint's copy is still found through the kept item's band keys.
    report = _store(runtime, [ecbplus_item("29_9ecbplus")])
    assert report.syndicated == 1


def test_reprints_within_one_batch_and_podcasts_without_article(runtime: Runtime) -> None:
    podcast = item_from_mapping(
        {
            "url": "https://changelog.com/practicalai/300",
            "media_type": "podcast",
            "title": "Practical AI, episode 300",
            "published_date": "2024-12-02",
            "source": {"name": "Changelog", "domain": "changelog.com"},
            "podcast": {"title": "Practical AI", "publisher": "Changelog Media"},
            "duration_seconds": 3081.4,
            "transcript_segments": [
                {
                    "start": 0,
                    "end": 28.4,
                    "speaker": "Daniel Whitenack",
                    "text": "Welcome to Practical AI.",
                },
            ],
        }
    )
    _store(runtime, [ecbplus_item("22_12ecbplus"), ecbplus_item("22_14ecbplus"), podcast])
    rows = _rows(runtime)
    assert (
        rows[ecbplus_item("22_12ecbplus").content_id].article_id
        == rows[ecbplus_item("22_14ecbplus").content_id].article_id
    )
    episode = rows[podcast.content_id]
    assert episode.article_id is None
    assert episode.duration_seconds == 3081
    assert episode.podcast_title == "Practical AI"
    assert episode.podcast_publisher == "Changelog Media"
    assert episode.podcast_id
    assert episode.episode_id
    assert episode.transcript_segments == [
        {
            "start": 0.0,
            "end": 28.4,
            "speaker": "Daniel Whitenack",
            "text": "Welcome to Practical AI.",
        }
    ]
    assert episode.body == "Welcome to Practical AI."


def test_an_estimated_date_never_moves_a_stored_item(runtime: Runtime) -> None:
    first = dataclasses.replace(ecbplus_item("24_5ecbplus"), published_is_estimate=True)
    _store(runtime, [first])
    assert isinstance(runtime.clock, FrozenClock)
    runtime.clock.advance(timedelta(days=1))
    later = dataclasses.replace(first, published_date=runtime.clock.now())
    report = _store(runtime, [later])
    assert report.duplicates == 1
    assert _rows(runtime)[first.content_id].published_at == first.published_date


def test_chunked_ingest_of_a_file_with_bad_lines(runtime: Runtime) -> None:
    lines = [
        json.dumps(
            {
                "url": DOCS[d]["source_url"],
                "media_type": "news",
                "title": d,
                "published_date": "2013-09-09",
                "source": {"name": "X", "domain": DOCS[d]["source_domain"]},
                "body": DOCS[d]["text"],
            }
        )
        for d in DOCS
    ]
    lines.insert(3, "{oops")
    document = Document(content="\n".join(lines).encode(), origin="docs.jsonl")
    outcomes = parse_document(document, format_name="auto", clock=runtime.clock)
    progress: list[int] = []
    report = ingest_outcomes(
        runtime.sessions, outcomes, clock=runtime.clock, chunk_size=4, on_progress=progress.append
    )
    assert report.accepted == len(DOCS)
    assert [(e.line, e.reason.split(":")[0]) for e in report.rejected] == [(4, "invalid JSON")]
    assert sum(progress) == len(DOCS) + 1
    again = ingest_outcomes(
        runtime.sessions,
        parse_document(document, format_name="jsonl", clock=runtime.clock),
        clock=runtime.clock,
    )
    assert (again.accepted, again.updated, again.duplicates) == (0, 0, len(DOCS))


def test_a_removed_item_comes_back_on_reingest(runtime: Runtime) -> None:
    item = ecbplus_item("24_1ecbplus")
    _store(runtime, [item])
    with runtime.sessions.write() as session:
        row = session.get(ContentItem, item.content_id)
        assert row is not None
        row.deleted_at = runtime.clock.now()
    report = _store(runtime, [item])
    assert report.updated == 1
    assert _rows(runtime)[item.content_id].deleted_at is None


def test_source_override_keeps_the_same_identity(runtime: Runtime) -> None:
    item = ecbplus_item("24_1ecbplus")
    renamed = dataclasses.replace(item, source=SourceRef("Yahoo News", "yahoo.com"))
    _store(runtime, [item])
    report = _store(runtime, [renamed])
    assert report.updated == 1
    assert len(_rows(runtime)) == 1


def test_parallel_json_lines_ingest_matches_the_serial_one(runtime: Runtime) -> None:
    from herald.ingest.pipeline import ingest_json_lines_parallel

    lines = [
        json.dumps(
            {
                "url": DOCS[d]["source_url"],
                "media_type": "news",
                "title": d,
                "published_date": "2013-09-09",
                "source": {"name": "X", "domain": DOCS[d]["source_domain"]},
                "body": DOCS[d]["text"],
            }
        )
        for d in DOCS
    ]
    lines.insert(5, '{"media_type": "news"}')
    content = "\n".join(lines).encode()
    report = ingest_json_lines_parallel(
        runtime.sessions, content, clock=runtime.clock, workers=2, chunk_size=3
    )
    assert report.accepted == len(DOCS)
    assert [(e.line, e.location) for e in report.rejected] == [(6, "line 6")]
    rows = _rows(runtime)
    assert (
        rows[ecbplus_item("29_1ecbplus").content_id].article_id
        == rows[ecbplus_item("29_9ecbplus").content_id].article_id
    )
    assert (
        rows[ecbplus_item("22_12ecbplus").content_id].article_id
        == rows[ecbplus_item("22_14ecbplus").content_id].article_id
    )
    assert len({row.article_id for row in rows.values()}) == 6
