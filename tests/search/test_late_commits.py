"""PostgreSQL hands out change sequence numbers before commit: a transaction can commit number N
after another committed N+1 and a search caught up past it. The next search must still see it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from herald.content.changes import IN_FLIGHT_LOCK_BASE, PG_SEQUENCE, mark_changed
from herald.content.deletion import ContentSelector, delete_content
from herald.content.repository import get_items
from herald.db.migrate import MIGRATIONS_DIR
from herald.db.models.content import ContentItem, ContentRemoval
from herald.runtime import Runtime
from herald.search.projection import POSTGRES_MARGIN
from herald.search.request import build_content_search
from herald.search.service import get_search
from tests.search.support import put_item

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture
def backend() -> str:
    return "postgres"


def titles(runtime: Runtime, query: str) -> list[str]:
    request = build_content_search(query=query, clock=runtime.clock)
    with runtime.sessions.read() as session:
        hits = get_search(runtime).search(session, request)
        items = get_items(session, [h.content_id for h in hits])
        return [items[h.content_id].title for h in hits]


def _slow_item(runtime: Runtime) -> str:
    """The item whose change each test commits late, found by search as first stored."""
    slow = put_item(
        runtime,
        "https://example.com/slow",
        title="Harbour strike halts container traffic",
        body="Dock workers walked out over pay, stopping container traffic at the harbour.",
        published_at=NOW - timedelta(days=1),
    )
    assert titles(runtime, "harbour strike") == ["Harbour strike halts container traffic"]
    return slow


def test_a_late_commit_below_the_watermark_is_applied(search_runtime: Runtime) -> None:
    runtime = search_runtime
    slow = _slow_item(runtime)
    with Session(runtime.engine) as late:
        row = late.get(ContentItem, slow)
        assert row is not None
        row.title = "Harbour strike ends after pay deal"
        late_seq = mark_changed(late, [slow])  # drawn now, committed last
        put_item(
            runtime,
            "https://example.com/fast",
            title="Ferry timetable changes for winter",
            body="The ferry company published its winter timetable with fewer crossings.",
            published_at=NOW - timedelta(days=1),
        )
        assert titles(runtime, "ferry winter timetable") == ["Ferry timetable changes for winter"]
        late.commit()
    with runtime.sessions.read() as session:
        top = session.query(ContentItem.change_seq).filter(ContentItem.id != slow).all()
        assert late_seq < max(seq for (seq,) in top)  # really committed below the watermark
    assert titles(runtime, "deal ends") == ["Harbour strike ends after pay deal"]


def test_a_late_commit_survives_a_large_deletion_committed_meanwhile(
    search_runtime: Runtime,
) -> None:
    """Deleting many items is one change per transaction, not one per item: a deletion of more
    items than the margin, committed while another transaction is open, leaves that one's
    change inside the margin."""
    runtime = search_runtime
    slow = put_item(
        runtime,
        "https://example.com/slow",
        title="Harbour strike halts container traffic",
        body="Dock workers walked out over pay, stopping container traffic at the harbour.",
        published_at=NOW - timedelta(days=1),
    )
    filler = POSTGRES_MARGIN + 200
    with runtime.sessions.write() as session:
        session.add_all(
            ContentItem(
                id=f"cnt_filler{n:05d}",
                canonical_key=f"https://filler.example/{n}",
                url=f"https://filler.example/{n}",
                media_type="news",
                source_name="Filler",
                source_domain="filler.example",
                title=f"Filler {n}",
                published_at=NOW - timedelta(days=2),
                content_hash=f"filler{n}",
                created_at=NOW,
                updated_at=NOW,
            )
            for n in range(filler)
        )
    assert titles(runtime, "harbour strike") == ["Harbour strike halts container traffic"]
    with Session(runtime.engine) as late:
        row = late.get(ContentItem, slow)
        assert row is not None
        row.title = "Harbour strike ends after pay deal"
        late_seq = mark_changed(late, [slow])  # drawn now, committed last
        report = delete_content(
            runtime.sessions,
            ContentSelector(source_domain="filler.example"),
            actor="test",
            clock=runtime.clock,
        )
        assert report.deleted == filler
        assert titles(runtime, "harbour strike") == ["Harbour strike halts container traffic"]
        late.commit()
    with runtime.sessions.read() as session:
        removals = session.query(ContentRemoval.change_seq).all()
    assert len(removals) == filler
    assert late_seq < min(seq for (seq,) in removals)  # really committed below them
    assert titles(runtime, "deal ends") == ["Harbour strike ends after pay deal"]


def test_a_late_commit_behind_more_numbers_than_the_margin_is_applied(
    search_runtime: Runtime,
) -> None:
    """A busy database draws more change numbers than the margin while one transaction is open
    (an ingestion of a few thousand items beside a deletion waiting for a lock): that
    transaction's change must still reach the index when it commits."""
    runtime = search_runtime
    slow = _slow_item(runtime)
    with Session(runtime.engine) as late:
        row = late.get(ContentItem, slow)
        assert row is not None
        row.title = "Harbour strike ends after pay deal"
        late_seq = mark_changed(late, [slow])  # drawn now, committed last
        with runtime.sessions.write() as others:  # the numbers other writers drew meanwhile
            others.execute(
                text("SELECT nextval(:name) FROM generate_series(1, :count)"),
                {"name": PG_SEQUENCE, "count": 2 * POSTGRES_MARGIN},
            )
        fast = put_item(
            runtime,
            "https://example.com/fast",
            title="Ferry timetable changes for winter",
            body="The ferry company published its winter timetable with fewer crossings.",
            published_at=NOW - timedelta(days=1),
        )
        assert titles(runtime, "ferry winter timetable") == ["Ferry timetable changes for winter"]
        late.commit()
    with runtime.sessions.read() as session:
        fast_seq = session.get(ContentItem, fast).change_seq  # type: ignore[union-attr]
    assert late_seq < fast_seq - POSTGRES_MARGIN  # really committed far below the watermark
    assert titles(runtime, "deal ends") == ["Harbour strike ends after pay deal"]


def test_a_late_removal_behind_more_numbers_than_the_margin_is_applied(
    search_runtime: Runtime,
) -> None:
    """The same for a row deleted outright (its number drawn by the database's trigger)."""
    runtime = search_runtime
    gone = put_item(
        runtime,
        "https://example.com/gone",
        title="Harbour strike halts container traffic",
        body="Dock workers walked out over pay, stopping container traffic at the harbour.",
        published_at=NOW - timedelta(days=1),
    )
    assert titles(runtime, "harbour strike") == ["Harbour strike halts container traffic"]
    with Session(runtime.engine) as late:
        late.execute(text("DELETE FROM content_items WHERE id = :id"), {"id": gone})
        with runtime.sessions.write() as others:
            others.execute(
                text("SELECT nextval(:name) FROM generate_series(1, :count)"),
                {"name": PG_SEQUENCE, "count": 2 * POSTGRES_MARGIN},
            )
        put_item(
            runtime,
            "https://example.com/fast",
            title="Ferry timetable changes for winter",
            body="The ferry company published its winter timetable with fewer crossings.",
            published_at=NOW - timedelta(days=1),
        )
        assert titles(runtime, "ferry winter timetable") == ["Ferry timetable changes for winter"]
        late.commit()
    assert titles(runtime, "harbour strike") == []


def test_the_trigger_locks_numbers_with_the_codes_key() -> None:
    source = Path(MIGRATIONS_DIR, "versions", "0027_removal_seq_in_flight.py").read_text()
    assert f"pg_advisory_xact_lock_shared({IN_FLIGHT_LOCK_BASE} + seq)" in source
