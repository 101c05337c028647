"""Shared steps of the clusters tests that touch the database."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import select, update

from herald.clusters.article_keys import keys_of
from herald.clusters.service import CLUSTER_KIND
from herald.clusters.tasks import CLUSTER_LANE
from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem
from herald.jobs.queue import enqueue
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.clusters.factories import STORIES, make_enriched_item

T0 = datetime(2026, 11, 24, 6, 0)


def store_stories(
    runtime: Runtime,
    *,
    start: datetime,
    stories: Sequence[str] = tuple(STORIES),
    interleave: bool = True,
    entities: Sequence[tuple[str, float]] = (),
) -> dict[str, list[str]]:
    """Every report of ``stories`` as enriched items one hour apart (interleaved, or story after
    story), each linked to ``entities``: story -> ids."""
    out: dict[str, list[str]] = {}
    rows = []
    if interleave:
        longest = max(len(STORIES[s]) for s in stories)
        for index in range(longest):
            for story in stories:
                if index < len(STORIES[story]):
                    rows.append((story, *STORIES[story][index]))
    else:
        rows = [(story, *report) for story in stories for report in STORIES[story]]
    with runtime.sessions.write() as session:
        for n, (story, title, body) in enumerate(rows):
            item = make_enriched_item(
                session,
                title=title,
                body=body,
                published_at=start + timedelta(hours=n),
                now=runtime.clock.now(),
                domain=f"outlet{n}.example",
                entities=list(entities),
            )
            out.setdefault(story, []).append(item.id)
    return out


def queue_clustering(runtime: Runtime, content_ids: Sequence[str]) -> None:
    with runtime.sessions.write() as session:
        for content_id in content_ids:
            enqueue(
                session,
                CLUSTER_KIND,
                {"content_id": content_id},
                clock=runtime.clock,
                unique_key=f"cluster:{content_id}",
            )


class _BatchFailures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "batch failed" in record.getMessage():
            self.messages.append(record.getMessage())


def drain_clustering(runtime: Runtime) -> int:
    """Run the clustering jobs; a batch that fails (and is retried job by job) is a bug."""
    failures = _BatchFailures()
    logger = logging.getLogger("herald.jobs.worker")
    logger.addHandler(failures)
    try:
        done = Worker(runtime).drain(CLUSTER_LANE)
    finally:
        logger.removeHandler(failures)
    assert not failures.messages, failures.messages
    return done


def cluster_of(runtime: Runtime) -> dict[str, str | None]:
    with runtime.sessions.read() as session:
        rows = session.execute(select(ContentItem.id, ContentItem.cluster_id)).all()
        return dict(rows)


def clusters(runtime: Runtime) -> list[StoryCluster]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(StoryCluster).order_by(StoryCluster.seq)))


def members(runtime: Runtime) -> list[StoryClusterMember]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(StoryClusterMember).order_by(StoryClusterMember.id)))


def rewrite(runtime: Runtime, content_id: str, n: int) -> None:
    """A new version of the item with other words, clustered again as after its enrichment."""
    with runtime.sessions.write() as session:
        session.execute(
            update(ContentItem)
            .where(ContentItem.id == content_id)
            .values(
                title=f"Zanzibar quorum{n} vote delayed over ballot{n} dispute",
                body=f"Officials in Xylotown{n} postponed the count of {1000 + n} ballots.",
                version=ContentItem.version + 1,
            )
        )
    queue_clustering(runtime, [content_id])
    drain_clustering(runtime)


def expected_keys(runtime: Runtime) -> tuple[Counter[tuple[str, str]], int]:
    """Each clustered article's current keys (from one of its copies), counted once, by bag and
    key; and how many articles are clustered."""
    with runtime.sessions.read() as session:
        articles: dict[str, str] = {}
        for content_id, article_id in session.execute(
            select(StoryClusterMember.content_id, StoryClusterMember.article_id).order_by(
                StoryClusterMember.content_id
            )
        ):
            articles.setdefault(article_id, content_id)
        counts: Counter[tuple[str, str]] = Counter()
        for content_id in articles.values():
            for bag, keys in keys_of(session, content_id).items():
                counts.update((bag, key) for key in keys)
        return counts, len(articles)
