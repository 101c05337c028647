"""Content items (news, wire, podcast episodes) and what enrichment attaches to them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base, JSONType
from herald.db.content_limits import (
    EPISODE_ID_MAX,
    EXTERNAL_ID_MAX,
    LANGUAGE_MAX,
    PODCAST_ID_MAX,
    SOURCE_DOMAIN_MAX,
    SOURCE_NAME_MAX,
)

# PostgreSQL draws change numbers (``change_seq``) from this sequence. A transaction holds a
# shared advisory lock on each number it draws until it ends, ``IN_FLIGHT_LOCK_BASE + number`` (a
# bigint key), so readers can find the lowest number still uncommitted, however long ago it was
# drawn (herald.content.changes draws them, herald.search.feed.in_flight_floor reads the locks).
PG_SEQUENCE = "content_change_seq"
IN_FLIGHT_LOCK_BASE = 0x4845_0000_0000_0000


class ContentItem(Base):
    """One item as one outlet published it. Shared by all workspaces.

    ``id`` is ``stable_id("cnt", canonical_key)``: the same canonical URL (or source+external id)
    always maps to the same row, so re-ingesting updates in place. ``article_id`` groups
    syndicated copies of one story text. ``change_seq`` increases with every write that changes
    what a search index sees (the embedded index catches up by it); ``deleted_at`` is a tombstone.
    """

    __tablename__ = "content_items"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    canonical_key: Mapped[str] = mapped_column(Text)
    media_type: Mapped[str] = mapped_column(String(16))
    url: Mapped[str | None] = mapped_column(Text)
    external_id: Mapped[str | None] = mapped_column(String(EXTERNAL_ID_MAX))
    source_id: Mapped[str | None] = mapped_column(String(40), index=True)
    source_name: Mapped[str] = mapped_column(String(SOURCE_NAME_MAX))
    source_domain: Mapped[str] = mapped_column(String(SOURCE_DOMAIN_MAX))
    title: Mapped[str] = mapped_column(Text)
    authors: Mapped[list[str]] = mapped_column(JSONType, default=list)
    language: Mapped[str | None] = mapped_column(String(LANGUAGE_MAX))
    # True when the source gave ``language``; False when enrichment detected it (or none is
    # known): detection runs again on every enrichment of an item whose language was not given.
    language_provided: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    published_at: Mapped[datetime]
    body: Mapped[str] = mapped_column(Text, default="")
    transcript_segments: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONType)
    summary: Mapped[str | None] = mapped_column(Text)
    summary_provided: Mapped[bool] = mapped_column(Boolean, default=False)
    summaries: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    key_points: Mapped[list[str]] = mapped_column(JSONType, default=list)
    segments: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    word_count: Mapped[int] = mapped_column(Integer, default=0)
    # Feed teasers: failed tries of the article page while the body is the feed's teaser (0 when
    # the page was fetched or never needed); polls fetch it again while this is below the bound
    # of herald.ingest.page_retries.
    page_fetch_failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    content_hash: Mapped[str] = mapped_column(String(64))
    article_id: Mapped[str | None] = mapped_column(String(40), index=True)
    podcast_id: Mapped[str | None] = mapped_column(String(PODCAST_ID_MAX))
    podcast_title: Mapped[str | None] = mapped_column(Text)
    podcast_publisher: Mapped[str | None] = mapped_column(Text)
    episode_id: Mapped[str | None] = mapped_column(String(EPISODE_ID_MAX))
    audio_url: Mapped[str | None] = mapped_column(Text)
    duration_seconds: Mapped[int | None] = mapped_column(Integer)
    cluster_id: Mapped[str | None] = mapped_column(String(40), index=True)
    enriched_at: Mapped[datetime | None]
    # The hash of what enrichment read when it made the enrichment this row holds (see
    # herald.enrich.inputs); null until enriched, and after an update that overwrote
    # part of it. An update with the same input hash keeps the enrichment.
    enrichment_input: Mapped[str | None] = mapped_column(String(64))
    change_seq: Mapped[int] = mapped_column(BigInteger, default=0, index=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]

    __table_args__ = (
        Index("ix_content_items_published", "published_at"),
        Index("ix_content_items_media_published", "media_type", "published_at"),
        Index("ix_content_items_domain", "source_domain"),
    )


class ContentEntity(Base):
    """A linked entity of a content item; published_at/media_type copied for timeline queries."""

    __tablename__ = "content_entities"

    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), primary_key=True
    )
    entity_id: Mapped[str] = mapped_column(
        ForeignKey("entities.id", ondelete="CASCADE"), primary_key=True
    )
    mention_count: Mapped[int] = mapped_column(Integer)
    salience: Mapped[float] = mapped_column(Float)
    confidence: Mapped[float] = mapped_column(Float)
    published_at: Mapped[datetime]
    media_type: Mapped[str] = mapped_column(String(16))

    __table_args__ = (Index("ix_content_entities_timeline", "entity_id", "published_at"),)


class ContentEmbedding(Base):
    """The item's embedding (float32 bytes): the source of truth every vector index syncs from."""

    __tablename__ = "content_embeddings"

    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), primary_key=True
    )
    model: Mapped[str] = mapped_column(String(200))
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    updated_at: Mapped[datetime]


class ContentRemoval(Base):
    """A content row removed from ``content_items`` (a hard delete, whatever made it).

    A tombstoned item keeps its row and tells the search indexes through its own ``change_seq``;
    a removed row cannot, so a database trigger (migration ``0013_search_removals``) writes one
    row here for every row deleted, with a new change sequence number. The indexes read this
    table beside ``content_items``, so any code path that deletes content rows is seen, without
    calling anything. The latest removal of an id is kept (an id can be ingested again).
    """

    __tablename__ = "content_removals"

    content_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    change_seq: Mapped[int] = mapped_column(BigInteger, index=True)


class RemovalMark(Base):
    """How far back a removal log (``content_removals``, ``entity_removals``) reaches: what lets
    it be pruned, and what was pruned.

    The daily history job writes one ``<log>:day:YYYY-MM-DD`` row with the number the log's
    readers had reached then; once that row is older than ``HERALD_HISTORY_DAYS``, the removals
    numbered up to it are deleted, and the ``<log>:pruned`` row holds the highest number deleted.
    A reader (a search index, an entity view) whose last number is below it has missed removals
    it can no longer read: it is rebuilt (:mod:`herald.db.removal_logs`).
    """

    __tablename__ = "removal_marks"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    change_seq: Mapped[int] = mapped_column(BigInteger)
    taken_at: Mapped[datetime]


class ContentDeletion(Base):
    """One deletion of content: who asked, when, by which selector, and how many items went.

    It never holds the content itself (no title, text or URL of a deleted item): the selector is
    what the operator typed (an id, a URL or a domain and date), which is already known to whoever
    asked. ``status`` is ``running`` until every batch is done; a deletion interrupted half way
    keeps its count of the batches that committed, and running it again finishes it (with a
    record of its own). The history job marks one still running a week after it started
    ``abandoned`` (:mod:`herald.jobs.history`).
    """

    __tablename__ = "content_deletions"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    actor: Mapped[str] = mapped_column(String(200))  # "key:<id> (team <id>)", "cli:<user>", ...
    reason: Mapped[str] = mapped_column(String(16))  # request | retention
    selector: Mapped[dict[str, Any]] = mapped_column(JSONType)
    deleted_count: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16))  # running | done | abandoned
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]

    __table_args__ = (Index("ix_content_deletions_started", "started_at"),)


class ContentTombstone(Base):
    """An item an operator deleted (a takedown): ingestion skips an entry with its identity.

    It holds no content, only hashes: ``url_hash`` is the SHA-256 of the item's canonical URL
    identity (``url:`` and the canonical URL), ``external_hash`` that of its own id within its
    source (``ext:``, the source domain and the id) when it was identified by one (feed guids,
    ninjs uris). Retention deletions make none. ``herald content allow`` removes them.
    """

    __tablename__ = "content_tombstones"

    content_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    url_hash: Mapped[str | None] = mapped_column(String(64))
    external_hash: Mapped[str | None] = mapped_column(String(64))
    deletion_id: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]

    __table_args__ = (
        Index("ix_content_tombstones_url_hash", "url_hash"),
        Index("ix_content_tombstones_external_hash", "external_hash"),
    )
