"""database identity: a random id per database, recorded by the search indexes built from it

Revision ID: 0030_database_identity
Revises: 0029_entity_removal_in_flight
Create Date: 2026-12-01 04:30:00.000000

``database_identity`` holds one row: a random id made here, for new and existing databases.
Each machine's search index (``HERALD_HOME/index``) records the id of the database it was built
from and is emptied and rebuilt when it finds another one. ``herald db restore`` and
``herald db copy`` give the database they produce a new id (herald.db.identity).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from herald.db.base import UTCDateTime

revision: str = "0030_database_identity"
down_revision: str | Sequence[str] | None = "0029_entity_removal_in_flight"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        "database_identity",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("identity", sa.String(length=32), nullable=False),
        sa.Column("created_at", UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_database_identity")),
    )
    assert table is not None
    op.bulk_insert(
        table, [{"id": 1, "identity": uuid.uuid4().hex, "created_at": datetime.now(UTC)}]
    )


def downgrade() -> None:
    op.drop_table("database_identity")
