"""job turns (fair claims between workspaces) and shared rate-limit buckets

Revision ID: 0008_job_workspace
Revises: 0007_monitor_feeds_replay
Create Date: 2026-11-26 12:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_job_workspace"
down_revision: str | Sequence[str] | None = "0007_monitor_feeds_replay"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "job_turns",
        sa.Column("lane", sa.String(length=32), nullable=False),
        sa.Column("team_key", sa.String(length=40), nullable=False),
        sa.Column("served", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("lane", "team_key", name=op.f("pk_job_turns")),
    )
    op.create_table(
        "rate_buckets",
        sa.Column("bucket", sa.String(length=120), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("allowed", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("bucket", name=op.f("pk_rate_buckets")),
    )


def downgrade() -> None:
    op.drop_table("rate_buckets")
    op.drop_table("job_turns")
