"""content deletions: a record of every deletion of content (who, when, what selector, how many)

Revision ID: 0015_content_deletions
Revises: 0014_scale_rate_buckets_unlogged
Create Date: 2026-11-29 10:45:00.000000

The record never holds a deleted item's content: only the selector the operator gave (an id, a
URL, or a source domain and date), the actor, the times and the count.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import herald.db.base

revision: str = "0015_content_deletions"
down_revision: str | Sequence[str] | None = "0014_scale_rate_buckets_unlogged"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "content_deletions",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column(
            "selector",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("deleted_count", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", herald.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_content_deletions")),
    )
    with op.batch_alter_table("content_deletions", schema=None) as batch_op:
        batch_op.create_index("ix_content_deletions_started", ["started_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("content_deletions", schema=None) as batch_op:
        batch_op.drop_index("ix_content_deletions_started")
    op.drop_table("content_deletions")
