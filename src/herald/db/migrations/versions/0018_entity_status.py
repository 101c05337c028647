"""entity status: discovered names are staged as candidates until confirmed

Revision ID: 0018_entity_status
Revises: 0017_fingerprint_bands_trigger
Create Date: 2026-11-29 17:10:00.000000

``active``: linking knows the entity (every seeded or imported entity, and a discovered one once
confirmed); ``candidate``: a name linking discovered that is not confirmed yet; ``rejected``: an
operator refused it. Entities written before this revision are all ``active``, discovered ones
included (they were linked under the earlier rule; ``herald entities review --reject`` removes
one).

``content_names``: the names an item mentions that linked to no active entity; when an entity of
such a name becomes active, the items holding it are enriched again. Filled as items are enriched.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_entity_status"
down_revision: str | Sequence[str] | None = "0017_fingerprint_bands_trigger"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("entities", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("status", sa.String(length=16), server_default="active", nullable=False)
        )
        batch_op.create_index(batch_op.f("ix_entities_status"), ["status"], unique=False)
    op.create_table(
        "content_names",
        sa.Column("content_id", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=300), nullable=False),
        sa.ForeignKeyConstraint(
            ["content_id"],
            ["content_items.id"],
            name=op.f("fk_content_names_content_id_content_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("content_id", "name_key", name=op.f("pk_content_names")),
    )
    op.create_index(op.f("ix_content_names_name_key"), "content_names", ["name_key"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_content_names_name_key"), table_name="content_names")
    op.drop_table("content_names")
    with op.batch_alter_table("entities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_entities_status"))
        batch_op.drop_column("status")
