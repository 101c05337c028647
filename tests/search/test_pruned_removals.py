"""The removal log is pruned after HERALD_HISTORY_DAYS; a search index that was offline meanwhile
(every implementation, SQLite and PostgreSQL) has missed deletions it can no longer read. It must
not keep finding the deleted items: it is emptied and rebuilt, and `herald index status` says so
until then. An index that kept up is left as it is."""

from __future__ import annotations

import logging
from datetime import timedelta

import numpy as np
import pytest

from herald.config import Settings
from herald.content.deletion import ContentSelector, delete_content
from herald.core.clock import FrozenClock
from herald.db.removal_logs import prune_removals, pruned_through
from herald.runtime import Runtime
from herald.search.documents import content_key
from herald.search.request import build_content_search
from herald.search.service import get_search
from herald.search.status import index_status
from tests.enrich.models import embedder
from tests.search.implementations import backend, implementation, settings
from tests.search.support import put_item

__all__ = ["backend", "implementation", "settings"]  # every implementation runs these tests

DAYS = 90
TITLES = {
    "volcano": "Volcano erupts near Reykjavik",
    "glacier": "Glacier retreat speeds up in Greenland",
    "harbour": "Harbour strike halts container traffic",
}


def _hits(runtime: Runtime, query: str) -> list[str]:
    """The ids the index returns, as it returns them (not filtered through the database)."""
    request = build_content_search(
        query=query, start_date="2026-11-01", end_date="2026-12-20", clock=runtime.clock
    )
    with runtime.sessions.read() as session:
        return [hit.content_id for hit in get_search(runtime).search(session, request)]


def _put_all(runtime: Runtime) -> dict[str, str]:
    published = runtime.clock.now() - timedelta(days=1)
    return {
        name: put_item(
            runtime,
            f"https://example.com/{name}",
            title=title,
            body=f"{title}. Reporters followed the events through the afternoon.",
            published_at=published,
        )
        for name, title in TITLES.items()
    }


def _delete(runtime: Runtime, content_id: str) -> None:
    report = delete_content(
        runtime.sessions,
        ContentSelector(content_id=content_id),
        actor="test",
        clock=runtime.clock,
    )
    assert report.deleted == 1


def _age_out(runtime: Runtime, clock: FrozenClock) -> int:
    """Today's mark, then past the window: the removals before the mark are pruned."""
    prune_removals(runtime.sessions, now=clock.now(), before=clock.now() - timedelta(days=DAYS))
    clock.advance(timedelta(days=DAYS + 1))
    return prune_removals(
        runtime.sessions, now=clock.now(), before=clock.now() - timedelta(days=DAYS)
    ).rows


def test_an_index_offline_while_removals_were_pruned_is_rebuilt(
    settings: Settings, clock: FrozenClock
) -> None:
    first = Runtime(settings, clock=clock)
    try:
        first.service("embedder", embedder)
        ids = _put_all(first)
        assert set(_hits(first, "reporters afternoon")) == set(ids.values())
    finally:
        first.close()  # the index (and this process's vector graph) saved as they are

    # Meanwhile, with no search running: two deletions, the first one's removal pruned.
    other = Runtime(settings, clock=clock)
    try:
        _delete(other, ids["glacier"])
        _delete(other, ids["harbour"])  # the newest removal: it stays in the log
        assert _age_out(other, clock) == 1
        with other.sessions.read() as session:
            assert pruned_through(session) > 0
    finally:
        other.close()

    back = Runtime(settings, clock=clock)
    try:
        back.service("embedder", embedder)
        status = index_status(back)
        assert not status.current
        assert status.problem is not None
        assert "search index too old" in status.problem
        assert "herald index rebuild" in status.problem

        # Caught up from its watermark, it would delete the harbour item only and keep finding
        # the glacier one, whose removal is gone from the log.
        assert _hits(back, "reporters afternoon") == [ids["volcano"]]
        assert _hits(back, "glacier greenland") == []
        vectors = get_search(back).index.vectors  # this process's graph, loaded from its snapshot
        assert len(vectors) == 1
        gone = np.array([content_key(ids["glacier"])], dtype=np.int64)
        assert vectors.rows_of(gone)[0] == -1
        assert index_status(back).current
    finally:
        back.close()


def test_an_index_that_kept_up_is_not_rebuilt(
    search_runtime: Runtime, clock: FrozenClock, caplog: pytest.LogCaptureFixture
) -> None:
    runtime = search_runtime
    ids = _put_all(runtime)
    _delete(runtime, ids["glacier"])
    _delete(runtime, ids["harbour"])
    assert _hits(runtime, "reporters afternoon") == [ids["volcano"]]  # applied both removals
    assert _age_out(runtime, clock) == 1

    with caplog.at_level(logging.WARNING, logger="herald.search"):
        assert _hits(runtime, "reporters afternoon") == [ids["volcano"]]
    assert "too old" not in caplog.text
    assert index_status(runtime).current
