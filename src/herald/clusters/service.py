"""Clustering enriched news and wire items into stories, against the database.

Every clustering transaction first locks the single ``cluster_state`` row, so batches are
clustered one at a time across all processes, in the order their jobs were queued. Each process
keeps its :class:`OnlineClusterer` in memory (a :class:`ClusterEngine`) and, under the lock,
catches up with what other processes wrote since it last looked (clusters and statistics carry
the ``changed_seq`` of the batch that wrote them); a rebuild bumps the ``epoch`` and every cache
reloads. If a transaction rolls back, the cache is dropped and rebuilt from the database.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from herald.clusters import article_keys, repository
from herald.clusters.assignment import ClusteringConfig
from herald.clusters.evidence import bag_keys
from herald.clusters.features import story_item
from herald.clusters.item import StoryItem
from herald.clusters.online import OnlineClusterer
from herald.clusters.profile import ClusterProfile
from herald.clusters.refresh import refresh_members
from herald.core.clock import Clock
from herald.core.ids import stable_id
from herald.db.models.clusters import ClusterState, StoryCluster
from herald.db.session import SessionFactory, after_commit
from herald.enrich.embedding import vector_from_bytes

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

CLUSTER_KIND = "clusters.assign"  # queued by enrichment for each news and wire item
REBUILD_CHUNK = 500


def member_id_for(content_id: str) -> str:
    return stable_id("clm", f"member:{content_id}")


class ClusterEngine:
    """This process's online clusterer, kept in step with the database under the state lock."""

    def __init__(self, config: ClusteringConfig | None = None) -> None:
        self.config = config or ClusteringConfig()
        self.lock = threading.Lock()  # one clustering transaction at a time in this process
        self._clusterer: OnlineClusterer | None = None
        self._synced: tuple[int, int] | None = None  # (epoch, sequence) the cache reflects

    def clusterer_for(self, session: Session, state: ClusterState) -> OnlineClusterer:
        """The in-memory clusterer, caught up with ``state`` (call with the state row locked)."""
        synced = self._synced
        if self._clusterer is None or synced is None or synced[0] != state.epoch:
            self._clusterer = OnlineClusterer(self.config)
            self._load(session, state, since=None)
        elif synced[1] != state.sequence:
            if synced[1] > state.sequence:  # cannot happen unless the database was restored
                self._clusterer = OnlineClusterer(self.config)
                self._load(session, state, since=None)
            else:
                self._load(session, state, since=synced[1])
        # Until this transaction commits, the cache may hold changes the database does not.
        self._synced = None
        return self._clusterer

    def committed(self, epoch: int, sequence: int) -> None:
        self._synced = (epoch, sequence)

    def invalidate(self) -> None:
        self._clusterer = None
        self._synced = None

    def _load(self, session: Session, state: ClusterState, *, since: int | None) -> None:
        clusterer = self._clusterer
        assert clusterer is not None
        for bag, key, documents in repository.statistics_since(session, since):
            clusterer.statistics[bag].counts[key] = documents
        for bag, documents in (state.documents or {}).items():
            clusterer.statistics[bag].documents = int(documents)
        for row in repository.clusters_since(session, since):
            if row.profile is None:
                clusterer.forget(row.id)
            else:
                profile = ClusterProfile.from_state(row.profile)
                clusterer.restore(profile, row.index_keys or [])
        clusterer.advance(state.watermark, next_seq=state.next_seq)


def get_engine(runtime: Runtime) -> ClusterEngine:
    return runtime.service("clusters", ClusterEngine)


@dataclass(slots=True)
class BatchOutcome:
    clustered: int = 0  # items given a cluster
    created: int = 0  # new clusters
    skipped: int = 0  # not clusterable (deleted, not enriched, podcast, already clustered)
    deferred: int = 0  # left to a running rebuild


@dataclass(slots=True)
class _Batch:
    """What one clustering transaction writes."""

    now: datetime
    changed: dict[str, ClusterProfile]
    members: list[dict[str, Any]]
    contents: dict[str, str]
    increments: dict[tuple[str, str], int]
    closed: list[StoryCluster]  # clusters out of the horizon that gained a copy
    moves: dict[str, str] = field(default_factory=dict)  # content id -> cluster it moved to
    decrements: dict[tuple[str, str], int] = field(default_factory=dict)  # updated articles
    counted: dict[str, article_keys.Keys] = field(default_factory=dict)  # article -> its keys


def cluster_items(
    session: Session,
    engine: ClusterEngine,
    content_ids: Sequence[str],
    *,
    clock: Clock,
    during_rebuild: bool = False,
) -> BatchOutcome:
    """Cluster ``content_ids`` in this order, inside the caller's transaction."""
    now = clock.now()
    state = repository.lock_state(session, now=now)
    outcome = BatchOutcome()
    if state.rebuilding and not during_rebuild:
        # The rebuild sweeps up every unclustered item before it ends.
        outcome.deferred = len(content_ids)
        return outcome
    try:
        clusterer = engine.clusterer_for(session, state)
        stored = repository.items_to_cluster(session, content_ids)
        batch = _Batch(now, {}, [], {}, {}, [])
        # Already clustered items come back after a new version of them was enriched.
        again = [cid for cid in content_ids if cid not in stored]
        profiles, closed = refresh_members(session, clusterer, again)
        batch.changed.update(profiles)
        batch.closed.extend(closed)
        batch.decrements, batch.increments, batch.counted = article_keys.follow_updates(
            session, clusterer, again
        )
        for content_id in dict.fromkeys(content_ids):
            found = stored.get(content_id)
            if found is None or found.vector is None:
                outcome.skipped += 1
                continue
            _cluster_one(session, clusterer, found, batch, outcome)
        _write(session, engine, clusterer, state, batch)
    except BaseException:
        engine.invalidate()
        raise
    return outcome


def _cluster_one(
    session: Session,
    clusterer: OnlineClusterer,
    found: repository.StoredItem,
    batch: _Batch,
    outcome: BatchOutcome,
) -> None:
    row = found.row
    assert found.vector is not None
    item = story_item(
        content_id=row.id,
        article_id=row.article_id,
        source_key=row.source_domain,
        published_at=row.published_at,
        title=row.title,
        body=row.body,
        summary=row.summary,
        embedding=vector_from_bytes(found.vector),
        entities=found.entities,
    )
    if not clusterer.has_article(item.article_id):
        earlier = repository.cluster_of_article(session, item.article_id)
        if earlier is not None:
            # A copy of an article whose story left the horizon: it joins that story.
            _join_closed(earlier, item.source_key, row.published_at, batch.now)
            batch.closed.append(earlier)
            batch.members.append(
                _member(item.content_id, item.article_id, earlier.id, item, batch.now, "high", 1.0)
            )
            batch.contents[row.id] = earlier.id
            outcome.clustered += 1
            return
    assignment = clusterer.assign(item, now=batch.now)
    profile = assignment.cluster
    if assignment.created:
        profile.created_at = row.created_at  # when Herald first saw the story: rebuild-stable
        outcome.created += 1
    if not assignment.syndicated:
        counted = bag_keys(item)
        for bag, keys in counted.items():
            for key in keys:
                batch.increments[(bag, key)] = batch.increments.get((bag, key), 0) + 1
        batch.counted[item.article_id] = article_keys.as_recorded(counted)
    batch.changed[profile.cluster_id] = profile
    if assignment.split_from is not None:
        # Members of another story moved into this new one (see herald.clusters.online).
        batch.changed[assignment.split_from.cluster_id] = assignment.split_from
        for content_id in assignment.moved:
            batch.moves[content_id] = profile.cluster_id
    batch.members.append(
        _member(
            item.content_id,
            item.article_id,
            profile.cluster_id,
            item,
            batch.now,
            assignment.link_confidence,
            assignment.similarity,
        )
    )
    batch.contents[row.id] = profile.cluster_id
    outcome.clustered += 1


def _member(
    content_id: str,
    article_id: str,
    cluster_id: str,
    item: StoryItem,
    now: datetime,
    confidence: str,
    similarity: float,
) -> dict[str, Any]:
    return {
        "id": member_id_for(content_id),
        "cluster_id": cluster_id,
        "content_id": content_id,
        "article_id": article_id,
        "source_key": item.source_key,
        "published_at": item.published_at,
        "assigned_at": now,
        "link_confidence": confidence,
        "similarity": round(float(similarity), 6),
    }


def _join_closed(row: StoryCluster, source_key: str, published_at: datetime, now: datetime) -> None:
    sources = sorted(set(row.source_keys) | {source_key})
    row.member_count += 1
    row.status = status_for(row.member_count)
    row.source_keys = sources
    row.unique_source_count = len(sources)
    row.first_published_at = min(row.first_published_at, published_at)
    row.latest_published_at = max(row.latest_published_at, published_at)
    row.latest_member_added_at = max(row.latest_member_added_at, now)
    row.profile_version += 1
    row.updated_at = now
    # Out of the horizon (the clusterer evicted it): its working profile is stale from now on.
    row.profile = None
    row.index_keys = None


def _write(
    session: Session,
    engine: ClusterEngine,
    clusterer: OnlineClusterer,
    state: ClusterState,
    batch: _Batch,
) -> None:
    sequence = state.sequence + 1
    previous_watermark = state.watermark
    for profile in batch.changed.values():
        if clusterer.get(profile.cluster_id) is None:
            # Changed, then evicted later in the same batch (a newer item moved the horizon
            # past it): stored closed, without a working profile, as _join_closed leaves it.
            values = cluster_values(profile, sequence=sequence, index_keys=[])
            values["profile"] = None
            values["index_keys"] = None
        else:
            values = cluster_values(
                profile, sequence=sequence, index_keys=clusterer.index_keys(profile.cluster_id)
            )
        repository.save_cluster(session, values)
    for row in batch.closed:
        row.changed_seq = sequence
    session.flush()
    repository.add_members(session, batch.members)
    repository.set_content_clusters(session, batch.contents)
    repository.move_members(session, batch.moves)  # after the inserts: may move their rows
    repository.add_statistics(session, batch.increments, sequence=sequence)
    repository.lower_statistics(session, batch.decrements, sequence=sequence)
    article_keys.record(session, batch.counted)
    state.sequence = sequence
    state.documents = {bag: stats.documents for bag, stats in clusterer.statistics.items()}
    state.next_seq = clusterer.next_seq
    state.watermark = clusterer.watermark
    state.updated_at = batch.now
    if clusterer.watermark is not None and clusterer.watermark != previous_watermark:
        horizon = engine.config.horizon
        repository.compact(
            session,
            published_from=None if previous_watermark is None else previous_watermark - horizon,
            published_before=clusterer.watermark - horizon,
            sequence=sequence,
        )
    epoch = state.epoch
    after_commit(session, lambda: engine.committed(epoch, sequence))


def status_for(member_count: int) -> str:
    return "stub" if member_count < 2 else "regular"


def cluster_values(
    profile: ClusterProfile, *, sequence: int, index_keys: list[str]
) -> dict[str, Any]:
    """The cluster row for a profile in the working set."""
    return {
        "id": profile.cluster_id,
        "seq": profile.seq,
        "status": status_for(profile.member_count),
        "title": profile.title,
        "abstract": profile.abstract,
        "member_count": profile.member_count,
        "unique_source_count": profile.unique_source_count,
        "source_keys": profile.source_keys,
        "key_entities": profile.key_entities(),
        "key_ideas": profile.key_ideas(),
        "first_published_at": profile.first_published_at,
        "latest_published_at": profile.latest_published_at,
        "latest_member_added_at": profile.latest_member_added_at,
        "profile_version": profile.profile_version,
        "created_at": profile.created_at,
        "updated_at": profile.updated_at,
        "changed_seq": sequence,
        "profile": profile.to_state(),
        "index_keys": index_keys,
    }


# -- rebuild -------------------------------------------------------------------------------------


def rebuild(
    sessions: SessionFactory,
    engine: ClusterEngine,
    *,
    clock: Clock,
    on_progress: Callable[[int, int], None] | None = None,
) -> BatchOutcome:
    """Forget every cluster and cluster the whole store again, in publication order.

    While it runs, clustering jobs leave their items alone (they are swept up at the end, in
    the transaction that ends the rebuild). Re-running it after an interruption starts over.
    """
    with sessions.write() as session:
        state = repository.lock_state(session, now=clock.now())
        repository.reset(session)
        state.rebuilding = True
        state.epoch += 1
        state.sequence = 0
        state.documents = {}
        state.next_seq = 0
        state.watermark = None
        state.updated_at = clock.now()
        order = repository.clustering_order(session)
    engine.invalidate()
    total = BatchOutcome()
    done = 0
    for start in range(0, len(order), REBUILD_CHUNK):
        chunk = order[start : start + REBUILD_CHUNK]
        with engine.lock, sessions.write() as session:
            _add(total, cluster_items(session, engine, chunk, clock=clock, during_rebuild=True))
        done += len(chunk)
        if on_progress is not None:
            on_progress(done, len(order))
    with engine.lock, sessions.write() as session:
        state = repository.lock_state(session, now=clock.now())
        late = repository.unclustered_ids(session)  # ingested while the rebuild ran
        _add(total, cluster_items(session, engine, late, clock=clock, during_rebuild=True))
        state.rebuilding = False
    return total


def _add(total: BatchOutcome, part: BatchOutcome) -> None:
    total.clustered += part.clustered
    total.created += part.created
    total.skipped += part.skipped
    total.deferred += part.deferred
