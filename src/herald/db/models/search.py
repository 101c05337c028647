"""Search projections: how far each has applied content changes, and the PostgreSQL lexical rows.

Search indexes are projections of ``content_items`` kept up to date by its ``change_seq``.
``search_projections`` records the sequence a shared projection has applied (the PostgreSQL
lexical table; the embedded Tantivy index keeps its watermark inside the index itself).
``content_search_documents`` is the PostgreSQL adapter's lexical index: one row per live item
with a weighted ``tsvector`` (A title, B summary, C key points, D body or transcript) built from
Herald's own analyzer, so both adapters see exactly the same terms. On SQLite the table exists
(one schema for both backends) but stays empty.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.dialects.postgresql import ARRAY, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base

TsVector = Text().with_variant(TSVECTOR(), "postgresql")
StringArray = JSON().with_variant(ARRAY(String(253)), "postgresql")


class SearchProjection(Base):
    __tablename__ = "search_projections"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    applied_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    updated_at: Mapped[datetime]


class ContentSearchDocument(Base):
    __tablename__ = "content_search_documents"

    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[int] = mapped_column(BigInteger, unique=True)
    tsv: Mapped[str] = mapped_column(TsVector)
    title_len: Mapped[int] = mapped_column(Integer)
    summary_len: Mapped[int] = mapped_column(Integer)
    key_points_len: Mapped[int] = mapped_column(Integer)
    body_len: Mapped[int] = mapped_column(Integer)
    published_at: Mapped[datetime]
    media_type: Mapped[str] = mapped_column(String(16))
    domains: Mapped[list[str]] = mapped_column(StringArray)
    language: Mapped[str | None] = mapped_column(String(12))
    entity_ids: Mapped[list[str]] = mapped_column(StringArray)
    change_seq: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_content_search_documents_tsv", "tsv", postgresql_using="gin"),
        Index("ix_content_search_documents_published", "published_at"),
        Index("ix_content_search_documents_domains", "domains", postgresql_using="gin"),
        Index("ix_content_search_documents_entities", "entity_ids", postgresql_using="gin"),
    )
