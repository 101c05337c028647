"""database backed up at: when `herald db backup` last backed the database up

Revision ID: 0031_database_backed_up_at
Revises: 0030_database_identity
Create Date: 2026-12-01 08:00:00.000000

``database_identity.backed_up_at`` (nullable, instant on both databases): the end of the newest
``herald db backup`` of this database, exported as ``herald_database_backed_up_timestamp_seconds``
so an alert can say when backups stop. Existing databases start with none recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from herald.db.base import UTCDateTime

revision: str = "0031_database_backed_up_at"
down_revision: str | Sequence[str] | None = "0030_database_identity"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "database_identity", sa.Column("backed_up_at", UTCDateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    with op.batch_alter_table("database_identity") as batch:
        batch.drop_column("backed_up_at")
