"""Recounting the clustering statistics exactly from the articles clustered now.

``cluster_term_stats`` counts, per bag and key, the clustered articles that have the key, and
``cluster_state.documents`` the clustered articles (in every bag, as the online clusterer counts
them). Articles clustered before revision 0028 have no record of their counted keys
(``cluster_article_keys``): an update of one of them left its earlier keys counted, a deletion of
one took away its current keys, and the counts drifted. A recount puts them right:

1. Every clustered article without a record gets one: its current keys (one copy's text and
   entities), in batches, each a short transaction holding the clustering state lock. Counts are
   not touched yet. From then on every clustering batch, update and deletion moves the counts by
   exactly what it changes in the records, so the error of each count (stored count minus what
   the records give) no longer changes, whatever runs meanwhile.
2. One read transaction (a single snapshot: REPEATABLE READ on PostgreSQL, a read transaction on
   SQLite) reads the counts and the records of the clustered articles, in batches, and computes
   that error per key and per bag. It blocks no writer.
3. A short transaction holding the state lock takes the error away from the counts as they are
   then: an article clustered, updated or deleted between the snapshot and this step keeps its
   own contribution, so the result is exact. If the clustering epoch changed meanwhile (a
   deletion or a rebuild reloaded every process), the snapshot is taken again. The epoch goes up,
   so every process reloads its statistics.

Running it again changes nothing (the error is then zero); an interrupted recount leaves records
that are true, and the next one finishes the work.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, exists, func, select
from sqlalchemy.orm import Session

from herald.clusters import article_keys, repository
from herald.clusters.evidence import BAG_NAMES
from herald.core.clock import Clock
from herald.db.models.clusters import ClusterArticleKeys, ClusterTermStat, StoryClusterMember
from herald.db.session import SessionFactory

RECOUNT_KIND = "clusters.recount"
RECOUNT_KEY = "clusters.recount"  # one recount at a time
BATCH = 500  # articles per transaction (records) and per read (snapshot)
ATTEMPTS = 5  # snapshots taken before giving up for this run (the epoch kept changing)

Pair = tuple[str, str]


class RecountDeferred(Exception):
    """A rebuild is running, or the statistics kept changing epoch: try again later."""


@dataclass(frozen=True, slots=True)
class RecountReport:
    recorded: int  # articles given a record of their keys
    articles: int  # clustered articles counted
    corrected: int  # counts (bag, key) that changed
    documents: dict[str, int]  # the per-bag document counts written


@dataclass(frozen=True, slots=True)
class _Snapshot:
    epoch: int
    errors: dict[Pair, int]  # stored count minus the records' sum (non-zero only)
    document_errors: dict[str, int]  # per bag
    articles: int


def _lacks_record() -> ColumnElement[bool]:
    return ~exists().where(ClusterArticleKeys.article_id == StoryClusterMember.article_id)


def needs_recount(session: Session) -> bool:
    """Whether a clustered article has no record of its counted keys (counted before 0028)."""
    lacking = select(StoryClusterMember.article_id).where(_lacks_record()).limit(1)
    return session.execute(lacking).first() is not None


def record_missing(sessions: SessionFactory, *, clock: Clock, batch_size: int = BATCH) -> int:
    """Give every clustered article without a record its current keys (one of its copies');
    returns how many. Batches walk the articles in id order, each a short transaction holding
    the clustering state lock."""
    done = 0
    after = ""
    while True:
        with sessions.write() as session:
            state = repository.lock_state(session, now=clock.now())
            if state.rebuilding:
                raise RecountDeferred("a rebuild of the clusters is running")
            rows = session.execute(
                select(StoryClusterMember.article_id, func.min(StoryClusterMember.content_id))
                .where(StoryClusterMember.article_id > after, _lacks_record())
                .group_by(StoryClusterMember.article_id)
                .order_by(StoryClusterMember.article_id)
                .limit(batch_size)
            ).all()
            if not rows:
                return done
            article_keys.record(
                session,
                {
                    article_id: article_keys.as_recorded(article_keys.keys_of(session, content_id))
                    for article_id, content_id in rows
                },
            )
        done += len(rows)
        after = rows[-1][0]


def _snapshot(sessions: SessionFactory, *, batch_size: int) -> _Snapshot | None:
    """The error of every count, read in one snapshot; None if an article has no record."""
    with sessions.read() as session:
        if session.get_bind().dialect.name == "postgresql":
            session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        state = repository.read_state(session)
        if state is None:
            return _Snapshot(epoch=0, errors={}, document_errors={}, articles=0)
        if state.rebuilding:
            raise RecountDeferred("a rebuild of the clusters is running")
        if needs_recount(session):
            return None
        errors: Counter[Pair] = Counter(
            {
                (bag, key): int(documents)
                for bag, key, documents in session.execute(
                    select(ClusterTermStat.bag, ClusterTermStat.key, ClusterTermStat.documents)
                )
            }
        )
        clustered = exists().where(StoryClusterMember.article_id == ClusterArticleKeys.article_id)
        articles = 0
        after = ""
        while True:
            rows = session.execute(
                select(ClusterArticleKeys.article_id, ClusterArticleKeys.keys)
                .where(ClusterArticleKeys.article_id > after, clustered)
                .order_by(ClusterArticleKeys.article_id)
                .limit(batch_size)
            ).all()
            if not rows:
                break
            for article_id, keys in rows:
                for bag, found in dict(keys).items():
                    errors.subtract((bag, key) for key in found)
                after = article_id
            articles += len(rows)
        stored = state.documents or {}
        # The online clusterer counts every article in every bag, whatever keys it has.
        document_errors = {
            bag: int(stored.get(bag, 0)) - articles for bag in sorted(set(BAG_NAMES) | set(stored))
        }
        return _Snapshot(
            epoch=state.epoch,
            errors={pair: n for pair, n in errors.items() if n},
            document_errors=document_errors,
            articles=articles,
        )


def _apply(session: Session, snapshot: _Snapshot, *, clock: Clock) -> dict[str, int] | None:
    """Take the snapshot's errors away from the counts as they are now; None if the epoch
    changed since the snapshot (nothing written)."""
    state = repository.lock_state(session, now=clock.now())
    if state.rebuilding or state.epoch != snapshot.epoch:
        return None
    sequence = state.sequence + 1
    over = {pair: n for pair, n in snapshot.errors.items() if n > 0}
    under = {pair: -n for pair, n in snapshot.errors.items() if n < 0}
    repository.lower_statistics(session, over, sequence=sequence)
    repository.add_statistics(session, under, sequence=sequence)
    article_keys.delete_zero_counts(session)  # every process reloads: the epoch goes up
    documents = {bag: int(n) for bag, n in (state.documents or {}).items()}
    for bag, error in snapshot.document_errors.items():
        documents[bag] = max(documents.get(bag, 0) - error, 0)
    state.documents = documents
    state.sequence = sequence
    state.epoch += 1
    state.updated_at = clock.now()
    return documents


def recount(
    sessions: SessionFactory,
    *,
    clock: Clock,
    batch_size: int = BATCH,
    before_apply: Callable[[], None] | None = None,
) -> RecountReport:
    """Record the keys of every clustered article lacking a record, then make the counts exactly
    what the records give. ``before_apply`` runs between the snapshot and its application
    (tests use it to cluster, update and delete articles meanwhile)."""
    recorded = 0
    for _ in range(ATTEMPTS):
        recorded += record_missing(sessions, clock=clock, batch_size=batch_size)
        snapshot = _snapshot(sessions, batch_size=batch_size)
        if snapshot is None:
            continue  # an article without a record appeared: record it first
        if before_apply is not None:
            before_apply()
        with sessions.write() as session:
            documents = _apply(session, snapshot, clock=clock)
        if documents is not None:
            return RecountReport(
                recorded=recorded,
                articles=snapshot.articles,
                corrected=len(snapshot.errors),
                documents=documents,
            )
    raise RecountDeferred("the clustering statistics kept changing epoch during the recount")
