"""Two processes catch the shared Tantivy index up at once (SQLite and PostgreSQL): one chose its
changes, then waited for the index while another process wrote it (applied a deletion made
meanwhile, or emptied it for a rebuild). What the first had chosen must not undo that: no deleted
item's text written back, no rebuild left with items missing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from herald.config import Settings
from herald.content.deletion import ContentSelector, delete_content
from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.runtime import Runtime
from herald.search.documents import content_key
from herald.search.embedded import EmbeddedSearch
from herald.search.feed import Change
from herald.search.lexical import LexicalIndex
from herald.search.projection import POSTGRES_MARGIN, ProjectionSync, TantivyProjection
from herald.search.service import get_search
from tests.content.blocking import Background
from tests.search.support import put_item
from tests.search.test_late_commits import titles

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class PausingProjection(TantivyProjection):
    """The Tantivy projection of another process, held just before it takes the index."""

    def __init__(self, lexical: LexicalIndex, *, one_snapshot: bool) -> None:
        super().__init__(lexical, one_snapshot=one_snapshot)
        self.reached = threading.Event()
        self.go = threading.Event()

    def apply(self, batches: Iterator[list[Change]], upto: int, *, since: int) -> int:
        self.reached.set()
        assert self.go.wait(30)
        return super().apply(batches, upto, since=since)


def paused_catch_up(
    runtime: Runtime, index: EmbeddedSearch
) -> tuple[PausingProjection, Background]:
    """Another process's catch-up of the shared index, started in the background: it reads the
    changes, then waits at the index lock until ``go`` is set."""
    margin = 0 if runtime.settings.is_sqlite else POSTGRES_MARGIN
    other = PausingProjection(LexicalIndex(index.lexical.path), one_snapshot=margin == 0)
    sync = ProjectionSync(other, margin=margin, embedding_model=None)

    def catch_up() -> int:
        with runtime.sessions.read() as session:
            return sync.catch_up(session)

    reading = Background(catch_up)
    reading.start()
    return other, reading


def test_a_catch_up_that_read_before_a_deletion_does_not_write_the_item_back(
    search_runtime: Runtime, settings: Settings, clock: FrozenClock
) -> None:
    runtime = search_runtime
    gone = put_item(
        runtime,
        "https://example.com/harbour",
        title="Harbour strike halts container traffic",
        body="Dock workers walked out over pay, stopping container traffic at the harbour.",
        published_at=NOW - timedelta(days=1),
    )
    assert titles(runtime, "harbour strike") == ["Harbour strike halts container traffic"]
    put_item(  # a change the other process has not applied yet
        runtime,
        "https://example.com/harbour",
        title="Harbour strike ends after pay deal",
        body="Dock workers went back to work at the harbour after a pay deal.",
        published_at=NOW - timedelta(days=1),
    )
    index = get_search(runtime).index
    assert isinstance(index, EmbeddedSearch)
    other, reading = paused_catch_up(runtime, index)
    assert other.reached.wait(30)  # it has read the change and waits for the index
    assert delete_content(
        runtime.sessions, ContentSelector(content_id=gone), actor="test", clock=runtime.clock
    ).deleted
    second = Runtime(settings, clock=clock)  # a third process searches: applies the deletion
    try:
        assert titles(second, "harbour strike") == []
    finally:
        second.close()
    with runtime.sessions.read() as session:
        top = session.scalar(select(func.max(ContentItem.change_seq)))
    other.go.set()
    reading.outcome()

    check = LexicalIndex(index.lexical.path)
    assert check.known_seqs([content_key(gone)]) == {}
    assert check.applied_seq() >= (top or 0)


def test_a_catch_up_that_read_before_a_rebuild_emptied_the_index_leaves_it_to_the_rebuild(
    search_runtime: Runtime,
) -> None:
    """`herald index rebuild` runs while Herald serves: it empties the index, then applies every
    change. A catch-up of another process that chose its few changes before the index was
    emptied must not write them with its watermark in between: the rebuild would then take
    every older item as applied, and they would be missing from the index."""
    runtime = search_runtime
    older = {
        "Harbour strike halts container traffic": "harbour strike",
        "Ferry timetable changes for winter": "ferry winter timetable",
    }
    for n, title in enumerate(older):
        put_item(
            runtime,
            f"https://example.com/{n}",
            title=title,
            body=title,
            published_at=NOW - timedelta(days=1),
        )
    for title, query in older.items():
        assert titles(runtime, query) == [title]
    put_item(  # the one change the other process chooses
        runtime,
        "https://example.com/late",
        title="Airport runway reopens after repairs",
        body="The airport reopened its runway after repairs.",
        published_at=NOW - timedelta(days=1),
    )
    search = get_search(runtime)
    index = search.index
    assert isinstance(index, EmbeddedSearch)
    other, reading = paused_catch_up(runtime, index)
    assert other.reached.wait(30)
    index.clear()  # the rebuild's first step
    other.go.set()
    reading.outcome()
    with runtime.sessions.read() as session:
        index.catch_up(session)  # the rebuild's second step
    for title, query in older.items():
        assert titles(runtime, query) == [title]
    assert titles(runtime, "airport runway") == ["Airport runway reopens after repairs"]
