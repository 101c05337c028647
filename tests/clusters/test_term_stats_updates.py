"""The document counts of ``cluster_term_stats`` follow the articles kept, through updates.

An article's keys are counted when its first copy is clustered. An update changes the item's
text (and so its keys); the counts must follow the new version, and deleting the item must take
away what is counted for it: after churn (items stored, updated, deleted) the table holds what
the live articles' keys give, no more, so it does not grow with updates.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from herald.content.deletion import ContentSelector, delete_content
from herald.db.models.clusters import ClusterTermStat
from herald.runtime import Runtime
from tests.clusters.helpers import (
    drain_clustering,
    expected_keys,
    queue_clustering,
    rewrite,
    store_stories,
)

START = datetime(2026, 11, 24, 6, 0, tzinfo=UTC)


def _rows(runtime: Runtime) -> dict[tuple[str, str], int]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(ClusterTermStat.bag, ClusterTermStat.key, ClusterTermStat.documents)
        )
        return {(bag, key): documents for bag, key, documents in rows}


def _stored(runtime: Runtime) -> Counter[tuple[str, str]]:
    """The counts (a count an update left at zero equals an absent one)."""
    return Counter({pair: n for pair, n in _rows(runtime).items() if n})


def test_counts_follow_updated_items_and_leave_with_them(runtime: Runtime) -> None:
    ids = [cid for story in store_stories(runtime, start=START).values() for cid in story]
    queue_clustering(runtime, ids)
    drain_clustering(runtime)
    assert _stored(runtime) == expected_keys(runtime)[0]
    for n, content_id in enumerate(ids[::2]):
        rewrite(runtime, content_id, n)
    # The counts follow the new versions (the old words are not counted any more).
    assert _stored(runtime) == expected_keys(runtime)[0]
    half = ids[: len(ids) // 2]
    for content_id in half:
        delete_content(
            runtime.sessions, ContentSelector(content_id=content_id), actor="t", clock=runtime.clock
        )
    assert _stored(runtime) == expected_keys(runtime)[0]
    assert min(_rows(runtime).values()) > 0  # a deletion takes the zeros updates left
    delete_content(
        runtime.sessions,
        ContentSelector(published_before=START + timedelta(days=365)),
        actor="t",
        clock=runtime.clock,
    )
    assert _rows(runtime) == {}  # nothing left behind by the updated items
