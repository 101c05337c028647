"""source retention: how many days a polled source's items are kept

Revision ID: 0016_source_retention
Revises: 0015_content_deletions
Create Date: 2026-11-29 11:00:00.000000

Null follows ``HERALD_RETENTION_DAYS``; 0 keeps the source's items forever.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_source_retention"
down_revision: str | Sequence[str] | None = "0015_content_deletions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ingest_sources", schema=None) as batch_op:
        batch_op.add_column(sa.Column("retention_days", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ingest_sources", schema=None) as batch_op:
        batch_op.drop_column("retention_days")
