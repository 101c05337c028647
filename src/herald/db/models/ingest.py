"""Ingestion's tables: configured sources (feeds polled on an interval) and the syndication
fingerprints that give reprints of one story text a shared ``article_id``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base, JSONType


class Source(Base):
    """A feed (RSS/Atom, podcast RSS, ninjs or JSON Lines over HTTP) polled on its interval.

    ``etag``/``last_modified`` are the validators of the last 200 response (conditional GET).
    ``url`` is the feed as configured (its identity); ``fetch_url`` is where it is fetched
    from once it moved for good (permanent redirects), None while that is ``url``. A failing
    source keeps its items; ``last_error`` says what went wrong and consecutive failures move
    its next poll out (:func:`herald.ingest.source_records.failure_backoff`).
    """

    __tablename__ = "ingest_sources"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    url: Mapped[str] = mapped_column(Text)
    fetch_url: Mapped[str | None] = mapped_column(Text)
    canonical_url: Mapped[str] = mapped_column(String(2048), unique=True)
    media_type: Mapped[str] = mapped_column(String(16))
    format: Mapped[str] = mapped_column(String(16), default="rss")
    name: Mapped[str | None] = mapped_column(String(300))
    domain: Mapped[str | None] = mapped_column(String(253))
    interval_seconds: Mapped[int] = mapped_column(Integer)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    etag: Mapped[str | None] = mapped_column(Text)
    last_modified: Mapped[str | None] = mapped_column(Text)
    next_poll_at: Mapped[datetime]
    last_polled_at: Mapped[datetime | None]
    last_success_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    last_error_at: Mapped[datetime | None]
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    last_report: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    items_seen: Mapped[int] = mapped_column(Integer, default=0)
    # Days its items are kept (0: forever); None follows HERALD_RETENTION_DAYS.
    retention_days: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    __table_args__ = (Index("ix_ingest_sources_due", "enabled", "next_poll_at"),)


class ContentFingerprint(Base):
    """The MinHash fingerprint of a news/wire item's text (see herald.ingest.syndication)."""

    __tablename__ = "ingest_fingerprints"

    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), primary_key=True
    )
    article_id: Mapped[str] = mapped_column(String(40))
    signature: Mapped[bytes] = mapped_column(LargeBinary)


class FingerprintBand(Base):
    """One LSH band key of a fingerprint: equal keys make two items candidates for a match.

    Deleted with its fingerprint by a trigger on ``ingest_fingerprints`` (migration 0017), not by
    a foreign key: a key would make PostgreSQL look up the fingerprint for each of the 42 rows an
    item writes, which cost more than writing the rows. Only ingestion writes these rows, right
    after their fingerprint and in the same transaction."""

    __tablename__ = "ingest_fingerprint_bands"

    content_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    band: Mapped[int] = mapped_column(Integer, primary_key=True)
    band_key: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_ingest_fingerprint_bands_key", "band_key"),)
