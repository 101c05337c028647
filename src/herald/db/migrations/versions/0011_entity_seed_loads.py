"""entity seed loads: the seed files loaded, so an upgraded seed's new entities are added

Revision ID: 0011_entity_seed_loads
Revises: 0010_initials_name_keys
Create Date: 2026-11-27 08:30:00.000000

A database seeded before this release has no row here: at its first start after the upgrade
the bundled seed is read once more, the entities it lacks are added and those still as the
earlier seed wrote them corrected (an operator's imports are never overwritten), then the seed
is recorded as loaded.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import herald.db.base

revision: str = "0011_entity_seed_loads"
down_revision: str | Sequence[str] | None = "0010_initials_name_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "entity_seed_loads",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("written", sa.Integer(), nullable=False),
        sa.Column("loaded_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_entity_seed_loads")),
    )


def downgrade() -> None:
    op.drop_table("entity_seed_loads")
