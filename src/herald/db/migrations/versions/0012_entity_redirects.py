"""entity redirects: a discovered entity merged into a knowledge-base entity of the same name

Revision ID: 0012_entity_redirects
Revises: 0011_entity_seed_loads
Create Date: 2026-11-27 13:30:00.000000

When a seed or an import adds an entity that linking had earlier discovered on its own (a
discovered "Barack Obama" before the seed knew him), the discovered one is merged into it: its
content links move, it is deleted, and its id is kept here so saved searches, monitors and
clients holding the old id keep working. Databases seeded before this release read the seed
once more at their first start (nothing is rewritten) and merge what they hold.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import herald.db.base

revision: str = "0012_entity_redirects"
down_revision: str | Sequence[str] | None = "0011_entity_seed_loads"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "entity_redirects",
        sa.Column("from_id", sa.String(length=40), nullable=False),
        sa.Column("to_id", sa.String(length=40), nullable=False),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["to_id"],
            ["entities.id"],
            name=op.f("fk_entity_redirects_to_id_entities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("from_id", name=op.f("pk_entity_redirects")),
    )
    with op.batch_alter_table("entity_redirects", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_entity_redirects_to_id"), ["to_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("entity_redirects", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_entity_redirects_to_id"))
    op.drop_table("entity_redirects")
