"""content tombstones: identities of items an operator deleted, so ingestion skips them

Revision ID: 0020_content_tombstones
Revises: 0019_removal_seq_per_transaction
Create Date: 2026-11-30 06:30:00.000000

A tombstone holds no content: the SHA-256 of the deleted item's canonical URL identity and,
for an item identified by its own id within its source (a feed guid), of that identity; the
deletion that made it and when. Ingestion looks a batch's identities up in the two indexes.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import herald.db.base

revision: str = "0020_content_tombstones"
down_revision: str | Sequence[str] | None = "0019_removal_seq_per_transaction"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "content_tombstones",
        sa.Column("content_id", sa.String(length=40), nullable=False),
        sa.Column("url_hash", sa.String(length=64), nullable=True),
        sa.Column("external_hash", sa.String(length=64), nullable=True),
        sa.Column("deletion_id", sa.String(length=40), nullable=False),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("content_id", name=op.f("pk_content_tombstones")),
    )
    with op.batch_alter_table("content_tombstones", schema=None) as batch_op:
        batch_op.create_index("ix_content_tombstones_url_hash", ["url_hash"], unique=False)
        batch_op.create_index(
            "ix_content_tombstones_external_hash", ["external_hash"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("content_tombstones", schema=None) as batch_op:
        batch_op.drop_index("ix_content_tombstones_external_hash")
        batch_op.drop_index("ix_content_tombstones_url_hash")
    op.drop_table("content_tombstones")
