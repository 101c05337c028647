"""PostgreSQL's bulk writes (COPY for items and fingerprints, one statement for a batch's jobs,
the candidates picked by one query) store exactly the rows the portable statements store."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import delete, select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem, ContentRemoval
from herald.db.models.ingest import ContentFingerprint, FingerprintBand
from herald.db.models.job import Job
from herald.ingest import repository
from herald.ingest.model import IncomingItem
from herald.ingest.normalize import item_from_mapping
from herald.ingest.service import store_items
from herald.ingest.syndication import fingerprint
from herald.jobs import enqueueing
from herald.runtime import Runtime

from .conftest import ecbplus_docs, ecbplus_item

DOCS = ecbplus_docs()


def _batches() -> list[list[IncomingItem]]:
    ids = list(DOCS)
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
                {"start": 0, "end": 28.4, "speaker": "Daniel W.", "text": "Welcome\tto \\ AI."},
                {"start": 28.4, "end": 31, "text": "Line\nbreak, \u00e9t\u00e9 \u2013 \U0001f600"},
            ],
        }
    )
    odd = ecbplus_item(
        ids[1],
        url="https://example.org/a\\b?x=1",
        title="Tabs\tnewlines\nand \\backslashes\\ \u00fcber \u2019quotes\u2019",
        authors=["Ana \u00c1lvarez", "Bob\\Smith"],
        summary="A given summary\twith a tab.",
        external_id="ext-\u00e9-1",
        language="fr",
    )
    first = [ecbplus_item(i) for i in ids[:6]] + [podcast, odd]
    # A reprint of a stored story (found through the stored band keys), an edited item (updated,
    # its fingerprint replaced), an unchanged one (a duplicate) and new ones.
    edited = dataclasses.replace(first[0], body=first[0].body + "\nA late paragraph.")
    reprint = ecbplus_item(ids[2], url="https://reprints.example.com/copy", title="A reprint")
    second = [edited, first[3], reprint] + [ecbplus_item(i) for i in ids[6:]]
    return [first, second]


def _snapshot(runtime: Runtime) -> dict[str, Any]:
    def plain(rows: Any, *, drop: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        return [{k: v for k, v in row._mapping.items() if k not in drop} for row in rows]

    with runtime.sessions.read() as session:
        items = plain(session.execute(select(ContentItem.__table__).order_by(ContentItem.id)))
        seqs = sorted({row["change_seq"] for row in items})
        for row in items:  # sequence numbers as their rank: the database's sequence moves on
            row["change_seq"] = seqs.index(row["change_seq"])
        return {
            "items": items,
            "fingerprints": plain(
                session.execute(
                    select(ContentFingerprint.__table__).order_by(ContentFingerprint.content_id)
                )
            ),
            "bands": plain(
                session.execute(
                    select(FingerprintBand.__table__).order_by(
                        FingerprintBand.content_id, FingerprintBand.band
                    )
                )
            ),
            # In id order, without the ids (the sequence moves on between the two runs).
            "jobs": plain(session.execute(select(Job.__table__).order_by(Job.id)), drop=("id",)),
        }


def _ingest(runtime: Runtime, clock: FrozenClock) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    start = clock.now()
    reports = []
    for batch in _batches():
        with runtime.sessions.write() as session:
            reports.append(store_items(session, batch, clock=clock).summary())
        clock.advance(timedelta(minutes=5))
    snapshot = _snapshot(runtime)
    with runtime.sessions.write() as session:
        for model in (Job, FingerprintBand, ContentFingerprint, ContentItem, ContentRemoval):
            session.execute(delete(model))
    clock.advance(start - clock.now())
    return reports, snapshot


def test_bulk_writes_store_the_rows_the_statements_store(
    runtime: Runtime, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    bulk_reports, bulk = _ingest(runtime, clock)
    monkeypatch.setattr(repository, "_COPY_ON_POSTGRES", False)
    monkeypatch.setattr(enqueueing, "_ONE_STATEMENT_ON_POSTGRES", False)
    reports, statements = _ingest(runtime, clock)
    assert bulk_reports == reports
    assert reports[1]["syndicated"] >= 1  # the stored copy was found
    assert reports[1]["updated"] == 1
    assert reports[1]["duplicates"] == 1
    assert len(bulk["items"]) == len(DOCS) + 3  # with the podcast, the odd item, the reprint
    assert len(bulk["bands"]) > 0
    for table in ("items", "fingerprints", "bands", "jobs"):
        assert bulk[table] == statements[table], table


def test_postgres_picks_the_candidates_the_portable_path_picks(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = list(DOCS)
    # Six copies of one story (at most three are candidates), and the other stories once.
    copies = [ecbplus_item(ids[0], url=f"https://copy{n}.example.com/story") for n in range(6)]
    with runtime.sessions.write() as session:
        store_items(session, copies + [ecbplus_item(i) for i in ids[1:]], clock=runtime.clock)
    wanted = [fp for fp in (fingerprint(doc["text"]) for doc in DOCS.values()) if fp is not None]
    keys = [key for fp in wanted for key in fp.band_keys()]

    def candidates() -> list[tuple[str, str, bytes, list[int]]]:
        with runtime.sessions.read() as session:
            found = repository.fingerprints_sharing_bands(session, keys)
        return sorted((f.content_id, f.article_id, f.signature, sorted(f.band_keys)) for f in found)

    one_query = candidates()
    monkeypatch.setattr(repository, "_COPY_ON_POSTGRES", False)
    assert one_query == candidates()
    articles = [article for _, article, _, _ in one_query]
    assert max(articles.count(a) for a in articles) == 3
