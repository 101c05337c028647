"""claim indexes by workspace (a claim's cost independent of the backlog)

Revision ID: 0009_job_claim_indexes
Revises: 0008_job_workspace
Create Date: 2026-11-26 14:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_job_claim_indexes"
down_revision: str | Sequence[str] | None = "0008_job_workspace"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _line() -> list[str | sa.ColumnElement[object]]:
    """A line of jobs: priority first, then due time, then id."""
    return [sa.literal_column("priority DESC"), "run_at", "id"]


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_claim")
        batch_op.drop_index("ix_jobs_kind_status")
        batch_op.create_index("ix_jobs_claim", ["lane", "status", "team_id", *_line()])
        batch_op.create_index("ix_jobs_kind_claim", ["kind", "status", "team_id", *_line()])


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_kind_claim")
        batch_op.drop_index("ix_jobs_claim")
        batch_op.create_index("ix_jobs_kind_status", ["kind", "status"])
        batch_op.create_index("ix_jobs_claim", ["lane", "status", *_line()])
