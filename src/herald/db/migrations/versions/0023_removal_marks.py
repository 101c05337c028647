"""removal marks: the removal log is pruned after HERALD_HISTORY_DAYS

Revision ID: 0023_removal_marks
Revises: 0022_page_fetch_failures
Create Date: 2026-11-30 14:30:00.000000

``removal_marks`` holds, per removal log, one row per day the history job ran
(``<log>:day:YYYY-MM-DD``, the number reached that day) and a ``<log>:pruned`` row (the highest
number of a removal deleted from the log; ``content`` for ``content_removals``). It starts empty: nothing was pruned, and
removals recorded before this revision are pruned once a mark taken after them ages out.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import herald.db.base

revision: str = "0023_removal_marks"
down_revision: str | Sequence[str] | None = "0022_page_fetch_failures"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "removal_marks",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("change_seq", sa.BigInteger(), nullable=False),
        sa.Column("taken_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_removal_marks")),
    )


def downgrade() -> None:
    op.drop_table("removal_marks")
