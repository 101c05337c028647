"""All SQL of the clusters area: the clusterer's state, clusters, members and statistics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from herald.core.dates import Window
from herald.core.pagination import PageRequest
from herald.db.dialect import insert_for
from herald.db.models.clusters import (
    ClusterArticleKeys,
    ClusterState,
    ClusterTermStat,
    StoryCluster,
    StoryClusterMember,
)
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.db.models.entity import Entity

STATE_ID = 1
CLUSTERED_MEDIA = ("news", "wire")
_CHUNK = 500  # ids per IN (...) list: well under SQLite's bound-parameter limit


@dataclass(frozen=True, slots=True)
class StoredItem:
    """What the clustering step reads of one enriched item."""

    row: ContentItem
    vector: bytes | None
    entities: list[tuple[str, str, float]]  # (entity id, display name, salience)


# -- the state row (the clustering lock) ---------------------------------------------------------


def lock_state(session: Session, *, now: datetime) -> ClusterState:
    """The state row, locked until the transaction ends: clustering runs one batch at a time.

    PostgreSQL: ``SELECT ... FOR UPDATE``. SQLite: write units of work already hold the
    database's single write lock from their first statement (BEGIN IMMEDIATE).
    """
    session.execute(
        insert_for(session, ClusterState)
        .values(
            id=STATE_ID,
            sequence=0,
            epoch=0,
            documents={},
            next_seq=0,
            watermark=None,
            rebuilding=False,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["id"])
    )
    return session.execute(
        select(ClusterState)
        .where(ClusterState.id == STATE_ID)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).scalar_one()


def read_state(session: Session) -> ClusterState | None:
    return session.get(ClusterState, STATE_ID)


# -- what the in-memory clusterer loads ----------------------------------------------------------


def statistics_since(session: Session, sequence: int | None) -> list[tuple[str, str, int]]:
    """Document frequencies (bag, key, documents) changed after ``sequence`` (all when None)."""
    query = select(ClusterTermStat.bag, ClusterTermStat.key, ClusterTermStat.documents)
    if sequence is not None:
        query = query.where(ClusterTermStat.changed_seq > sequence)
    return [(bag, key, int(n)) for bag, key, n in session.execute(query)]


def clusters_since(session: Session, sequence: int | None) -> list[StoryCluster]:
    """Clusters changed after ``sequence``, oldest change first; all live profiles when None."""
    query = select(StoryCluster)
    if sequence is None:
        query = query.where(StoryCluster.profile.is_not(None))
    else:
        query = query.where(StoryCluster.changed_seq > sequence)
    return list(session.scalars(query.order_by(StoryCluster.changed_seq, StoryCluster.seq)))


# -- reading items to cluster --------------------------------------------------------------------


def items_to_cluster(session: Session, content_ids: Sequence[str]) -> dict[str, StoredItem]:
    """Live, enriched news and wire items among ``content_ids`` that are not clustered yet."""
    out: dict[str, StoredItem] = {}
    for start in range(0, len(content_ids), _CHUNK):
        chunk = list(content_ids[start : start + _CHUNK])
        rows = session.execute(
            select(ContentItem, ContentEmbedding.vector)
            .outerjoin(ContentEmbedding, ContentEmbedding.content_id == ContentItem.id)
            .outerjoin(StoryClusterMember, StoryClusterMember.content_id == ContentItem.id)
            .where(
                ContentItem.id.in_(chunk),
                ContentItem.deleted_at.is_(None),
                ContentItem.enriched_at.is_not(None),
                ContentItem.media_type.in_(CLUSTERED_MEDIA),
                StoryClusterMember.id.is_(None),
            )
        ).all()
        entities: dict[str, list[tuple[str, str, float]]] = {}
        for link, name in session.execute(
            select(ContentEntity, Entity.display_name)
            .join(Entity, Entity.id == ContentEntity.entity_id)
            .where(ContentEntity.content_id.in_(chunk))
            .order_by(ContentEntity.content_id, ContentEntity.salience.desc(), Entity.id)
        ):
            entities.setdefault(link.content_id, []).append(
                (link.entity_id, name, float(link.salience))
            )
        for row, vector in rows:
            out[row.id] = StoredItem(row, vector, entities.get(row.id, []))
    return out


def cluster_of_article(session: Session, article_id: str) -> StoryCluster | None:
    """The cluster holding an earlier copy of ``article_id`` (syndication), if any."""
    cluster_id = session.scalar(
        select(StoryClusterMember.cluster_id)
        .where(StoryClusterMember.article_id == article_id)
        .order_by(StoryClusterMember.assigned_at, StoryClusterMember.id)
        .limit(1)
    )
    return None if cluster_id is None else session.get(StoryCluster, cluster_id)


def clustering_order(session: Session) -> list[str]:
    """Every clusterable item, in publication order (``herald clusters rebuild``)."""
    return list(
        session.scalars(
            select(ContentItem.id)
            .where(
                ContentItem.deleted_at.is_(None),
                ContentItem.enriched_at.is_not(None),
                ContentItem.media_type.in_(CLUSTERED_MEDIA),
            )
            .order_by(ContentItem.published_at, ContentItem.id)
        )
    )


def unclustered_ids(session: Session) -> list[str]:
    """Clusterable items without a cluster yet, in publication order."""
    return list(
        session.scalars(
            select(ContentItem.id)
            .outerjoin(StoryClusterMember, StoryClusterMember.content_id == ContentItem.id)
            .where(
                ContentItem.deleted_at.is_(None),
                ContentItem.enriched_at.is_not(None),
                ContentItem.media_type.in_(CLUSTERED_MEDIA),
                StoryClusterMember.id.is_(None),
            )
            .order_by(ContentItem.published_at, ContentItem.id)
        )
    )


# -- writing ---------------------------------------------------------------------------------------


def save_cluster(session: Session, values: Mapping[str, Any]) -> None:
    """Insert or update one cluster row (``values`` holds every column)."""
    row = session.get(StoryCluster, values["id"])
    if row is None:
        session.add(StoryCluster(**values))
        return
    for name, value in values.items():
        setattr(row, name, value)


def add_members(session: Session, rows: Sequence[Mapping[str, Any]]) -> None:
    if rows:
        session.execute(insert_for(session, StoryClusterMember), list(rows))


def set_content_clusters(session: Session, assignments: Mapping[str, str]) -> None:
    by_cluster: dict[str, list[str]] = {}
    for content_id, cluster_id in assignments.items():
        by_cluster.setdefault(cluster_id, []).append(content_id)
    for cluster_id, content_ids in by_cluster.items():
        session.execute(
            update(ContentItem).where(ContentItem.id.in_(content_ids)).values(cluster_id=cluster_id)
        )


def move_members(session: Session, moves: Mapping[str, str]) -> None:
    """Members that moved to another cluster (content id -> cluster id): member rows and the
    content items' ``cluster_id``. Each keeps the link it was given when it joined."""
    by_cluster: dict[str, list[str]] = {}
    for content_id, cluster_id in moves.items():
        by_cluster.setdefault(cluster_id, []).append(content_id)
    for cluster_id, content_ids in sorted(by_cluster.items()):
        for start in range(0, len(content_ids), _CHUNK):
            chunk = content_ids[start : start + _CHUNK]
            session.execute(
                update(StoryClusterMember)
                .where(StoryClusterMember.content_id.in_(chunk))
                .values(cluster_id=cluster_id)
            )
    set_content_clusters(session, moves)


def add_statistics(
    session: Session, increments: Mapping[tuple[str, str], int], *, sequence: int
) -> None:
    """Add document counts, one statement per chunk (a batch touches thousands of keys)."""
    rows = [
        {"bag": bag, "key": key, "documents": n, "changed_seq": sequence}
        for (bag, key), n in sorted(increments.items())
    ]
    for start in range(0, len(rows), _CHUNK):
        statement = insert_for(session, ClusterTermStat).values(rows[start : start + _CHUNK])
        statement = statement.on_conflict_do_update(
            index_elements=["bag", "key"],
            set_={
                "documents": ClusterTermStat.documents + statement.excluded.documents,
                "changed_seq": statement.excluded.changed_seq,
            },
        )
        session.execute(statement)


def subtract_statistics(
    session: Session, decrements: Mapping[tuple[str, str], int], *, sequence: int
) -> None:
    """Take document counts away, and delete the keys this left at zero.

    One update per bag and amount (almost every key loses one document) and chunk of keys, and
    the delete looks only at the keys just decremented, by primary key: a deletion batch never
    reads the whole table. The counts an update left at zero (:func:`lower_statistics`) go with
    :func:`herald.clusters.article_keys.delete_zero_counts`.
    """
    lower_statistics(session, decrements, sequence=sequence)
    delete_emptied_statistics(session, decrements)


def lower_statistics(
    session: Session, decrements: Mapping[tuple[str, str], int], *, sequence: int
) -> None:
    """Take document counts away, leaving the rows (at zero too) for every process to read."""
    by_amount: dict[tuple[str, int], list[str]] = {}
    for (bag, key), count in sorted(decrements.items()):
        by_amount.setdefault((bag, count), []).append(key)
    for (bag, count), keys in by_amount.items():
        for start in range(0, len(keys), _CHUNK):
            session.execute(
                update(ClusterTermStat)
                .where(
                    ClusterTermStat.bag == bag,
                    ClusterTermStat.key.in_(keys[start : start + _CHUNK]),
                )
                .values(documents=ClusterTermStat.documents - count, changed_seq=sequence)
                .execution_options(synchronize_session=False)
            )


def delete_emptied_statistics(session: Session, pairs: Iterable[tuple[str, str]]) -> None:
    """Delete those of ``pairs`` (``(bag, key)``) whose count is down to zero, by primary key."""
    by_bag: dict[str, list[str]] = {}
    for bag, key in sorted(pairs):
        by_bag.setdefault(bag, []).append(key)
    for bag, keys in by_bag.items():
        for start in range(0, len(keys), _CHUNK):
            session.execute(
                delete(ClusterTermStat)
                .where(
                    ClusterTermStat.bag == bag,
                    ClusterTermStat.key.in_(keys[start : start + _CHUNK]),
                    ClusterTermStat.documents <= 0,
                )
                .execution_options(synchronize_session=False)
            )


def compact(
    session: Session, *, published_from: datetime | None, published_before: datetime, sequence: int
) -> int:
    """Drop the working profile of clusters that fell out of the horizon (they never return).

    Only clusters whose latest publication lies in ``[published_from, published_before)`` are
    looked at: the cut-off only moves forward, so older ones were compacted before, and the
    statement's cost does not grow with the number of old clusters.
    """
    conditions = [
        StoryCluster.profile.is_not(None),
        StoryCluster.latest_published_at < published_before,
    ]
    if published_from is not None:
        conditions.append(StoryCluster.latest_published_at >= published_from)
    result = session.execute(
        update(StoryCluster)
        .where(*conditions)
        .values(profile=None, index_keys=None, changed_seq=sequence)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def reset(session: Session) -> None:
    """Forget every cluster (``herald clusters rebuild``)."""
    session.execute(
        update(ContentItem).where(ContentItem.cluster_id.is_not(None)).values(cluster_id=None)
    )
    session.execute(delete(StoryClusterMember))
    session.execute(delete(StoryCluster))
    session.execute(delete(ClusterTermStat))
    session.execute(delete(ClusterArticleKeys))


# -- reading for the API -------------------------------------------------------------------------


def list_regular(session: Session, window: Window, page: PageRequest) -> list[StoryCluster]:
    """Non-stub clusters created in ``window``, newest first (``page.fetch_limit`` rows)."""
    return list(
        session.scalars(
            select(StoryCluster)
            .where(
                StoryCluster.status == "regular",
                StoryCluster.created_at >= window.start,
                StoryCluster.created_at < window.end,
            )
            .order_by(StoryCluster.created_at.desc(), StoryCluster.id.desc())
            .offset(page.offset)
            .limit(page.fetch_limit)
        )
    )


def get_cluster(session: Session, cluster_id: str) -> StoryCluster | None:
    return session.get(StoryCluster, cluster_id)


def newest_members(
    session: Session, cluster_id: str, limit: int
) -> list[tuple[StoryClusterMember, ContentItem]]:
    """Members with a live content item, newest published first."""
    rows = session.execute(
        select(StoryClusterMember, ContentItem)
        .join(ContentItem, ContentItem.id == StoryClusterMember.content_id)
        .where(StoryClusterMember.cluster_id == cluster_id, ContentItem.deleted_at.is_(None))
        .order_by(StoryClusterMember.published_at.desc(), StoryClusterMember.id.desc())
        .limit(limit)
    ).all()
    return [(member, item) for member, item in rows]


def count_clusters(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(StoryCluster)) or 0)
