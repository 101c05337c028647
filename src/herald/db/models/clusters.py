"""Story clusters: the clusters the API shows, their members, and the online clusterer's state.

``story_clusters`` holds what the API shows (profile columns) and, while a cluster is within the
clustering horizon, the clusterer's working profile (``profile``, ``index_keys``); both are
dropped once the cluster falls out of the horizon, which keeps old clusters small.
``cluster_term_stats`` holds the stream's document frequencies per bag (terms, names, numbers,
entities), and ``cluster_article_keys`` what each counted article added to them
(:mod:`herald.clusters.article_keys`). ``cluster_state`` is a single row: the clustering lock
(every clustering transaction locks it), the change sequence that lets each process's in-memory
clusterer catch up with the others' writes (``changed_seq`` on clusters and statistics), and the
rebuild flag.
See docs/clusters.md.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base, JSONType


class StoryCluster(Base):
    __tablename__ = "story_clusters"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, unique=True)  # creation order
    status: Mapped[str] = mapped_column(String(16))  # stub | regular
    title: Mapped[str] = mapped_column(Text)
    abstract: Mapped[str] = mapped_column(Text)
    member_count: Mapped[int] = mapped_column(Integer)
    unique_source_count: Mapped[int] = mapped_column(Integer)
    source_keys: Mapped[list[str]] = mapped_column(JSONType)
    key_entities: Mapped[list[str]] = mapped_column(JSONType)
    key_ideas: Mapped[list[str]] = mapped_column(JSONType)
    first_published_at: Mapped[datetime]
    latest_published_at: Mapped[datetime]
    latest_member_added_at: Mapped[datetime]
    profile_version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    changed_seq: Mapped[int] = mapped_column(BigInteger, index=True)
    profile: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    index_keys: Mapped[list[str] | None] = mapped_column(JSONType)

    __table_args__ = (
        Index("ix_story_clusters_list", "status", "created_at"),
        Index("ix_story_clusters_latest", "latest_published_at"),
    )


class StoryClusterMember(Base):
    __tablename__ = "story_cluster_members"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    cluster_id: Mapped[str] = mapped_column(ForeignKey("story_clusters.id", ondelete="CASCADE"))
    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), unique=True
    )
    article_id: Mapped[str] = mapped_column(String(40), index=True)
    source_key: Mapped[str] = mapped_column(String(253))
    published_at: Mapped[datetime]
    assigned_at: Mapped[datetime]
    link_confidence: Mapped[str] = mapped_column(String(8))  # high | medium | low
    similarity: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_story_cluster_members_cluster", "cluster_id", "published_at"),)


class ClusterTermStat(Base):
    __tablename__ = "cluster_term_stats"

    bag: Mapped[str] = mapped_column(String(16), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    documents: Mapped[int] = mapped_column(Integer)
    changed_seq: Mapped[int] = mapped_column(BigInteger, index=True)

    # Counts an update left at zero stay until the next deletion (which reloads every process's
    # statistics) deletes them through this index.
    __table_args__ = (
        Index(
            "ix_cluster_term_stats_emptied",
            "bag",
            "key",
            sqlite_where=text("documents <= 0"),
            postgresql_where=text("documents <= 0"),
        ),
    )


class ClusterState(Base):
    __tablename__ = "cluster_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # always 1
    sequence: Mapped[int] = mapped_column(BigInteger)
    epoch: Mapped[int] = mapped_column(Integer)  # +1 on every rebuild: caches must reload all
    documents: Mapped[dict[str, int]] = mapped_column(JSONType)  # per bag
    next_seq: Mapped[int] = mapped_column(BigInteger)
    watermark: Mapped[datetime | None]
    rebuilding: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime]


class ClusterArticleKeys(Base):
    """The keys each counted article added to ``cluster_term_stats`` (per bag), so an update
    moves its counts to the new version's keys and a deletion takes away exactly what was added.
    Articles counted before revision 0028 have no row: their current keys are used."""

    __tablename__ = "cluster_article_keys"

    article_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    keys: Mapped[dict[str, list[str]]] = mapped_column(JSONType)
