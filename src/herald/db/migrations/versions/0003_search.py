"""search

Revision ID: 0003_search
Revises: 0002_ingest
Create Date: 2026-11-25 23:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import herald.db.base

revision: str = "0003_search"
down_revision: str | Sequence[str] | None = "0002_ingest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "search_projections",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("applied_seq", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_search_projections")),
    )
    op.create_table(
        "content_search_documents",
        sa.Column("content_id", sa.String(length=40), nullable=False),
        sa.Column("key", sa.BigInteger(), nullable=False),
        sa.Column(
            "tsv", sa.Text().with_variant(postgresql.TSVECTOR(), "postgresql"), nullable=False
        ),
        sa.Column("title_len", sa.Integer(), nullable=False),
        sa.Column("summary_len", sa.Integer(), nullable=False),
        sa.Column("key_points_len", sa.Integer(), nullable=False),
        sa.Column("body_len", sa.Integer(), nullable=False),
        sa.Column("published_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("media_type", sa.String(length=16), nullable=False),
        sa.Column(
            "domains",
            sa.JSON().with_variant(postgresql.ARRAY(sa.String(length=253)), "postgresql"),
            nullable=False,
        ),
        sa.Column("language", sa.String(length=12), nullable=True),
        sa.Column(
            "entity_ids",
            sa.JSON().with_variant(postgresql.ARRAY(sa.String(length=253)), "postgresql"),
            nullable=False,
        ),
        sa.Column("change_seq", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["content_id"],
            ["content_items.id"],
            name=op.f("fk_content_search_documents_content_id_content_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("content_id", name=op.f("pk_content_search_documents")),
        sa.UniqueConstraint("key", name=op.f("uq_content_search_documents_key")),
    )
    with op.batch_alter_table("content_search_documents", schema=None) as batch_op:
        batch_op.create_index(
            "ix_content_search_documents_domains", ["domains"], unique=False, postgresql_using="gin"
        )
        batch_op.create_index(
            "ix_content_search_documents_entities",
            ["entity_ids"],
            unique=False,
            postgresql_using="gin",
        )
        batch_op.create_index(
            "ix_content_search_documents_published", ["published_at"], unique=False
        )
        batch_op.create_index(
            "ix_content_search_documents_tsv", ["tsv"], unique=False, postgresql_using="gin"
        )
    if op.get_bind().dialect.name == "postgresql":
        # More common lexemes in the planner statistics: search reads their frequencies there.
        op.execute("ALTER TABLE content_search_documents ALTER COLUMN tsv SET STATISTICS 1000")


def downgrade() -> None:
    with op.batch_alter_table("content_search_documents", schema=None) as batch_op:
        batch_op.drop_index("ix_content_search_documents_tsv", postgresql_using="gin")
        batch_op.drop_index("ix_content_search_documents_published")
        batch_op.drop_index("ix_content_search_documents_entities", postgresql_using="gin")
        batch_op.drop_index("ix_content_search_documents_domains", postgresql_using="gin")
    op.drop_table("content_search_documents")
    op.drop_table("search_projections")
