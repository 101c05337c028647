"""search removals: every row deleted from content_items is recorded with a change sequence

Revision ID: 0013_search_removals
Revises: 0012_entity_redirects
Create Date: 2026-11-29 08:00:00.000000

Search indexes outside the database (the Tantivy index and the vector graph of each process)
learn about changes from ``content_items.change_seq``. A tombstone keeps its row; a row that is
deleted outright would leave no trace, and those indexes would keep serving it. A trigger on
``content_items`` records each deleted row in ``content_removals`` with a new change sequence
number (PostgreSQL: the ``content_change_seq`` sequence; SQLite: one above the highest number in
either table, as the application draws them), whatever code path deletes it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_search_removals"
down_revision: str | Sequence[str] | None = "0012_entity_redirects"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION herald_record_content_removal() RETURNS trigger AS $$
BEGIN
    INSERT INTO content_removals (content_id, change_seq)
    VALUES (OLD.id, nextval('content_change_seq'))
    ON CONFLICT (content_id) DO UPDATE SET change_seq = excluded.change_seq;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""

_PG_TRIGGER = """
CREATE TRIGGER trg_content_items_removal AFTER DELETE ON content_items
FOR EACH ROW EXECUTE FUNCTION herald_record_content_removal()
"""

# The deleted row's own number counts too: it may have been the highest one.
_SQLITE_TRIGGER = """
CREATE TRIGGER trg_content_items_removal AFTER DELETE ON content_items
FOR EACH ROW BEGIN
    INSERT OR REPLACE INTO content_removals (content_id, change_seq)
    VALUES (OLD.id, max(
        OLD.change_seq,
        coalesce((SELECT max(change_seq) FROM content_items), 0),
        coalesce((SELECT max(change_seq) FROM content_removals), 0)
    ) + 1);
END
"""


def upgrade() -> None:
    op.create_table(
        "content_removals",
        sa.Column("content_id", sa.String(length=40), nullable=False),
        sa.Column("change_seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("content_id", name=op.f("pk_content_removals")),
    )
    with op.batch_alter_table("content_removals", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_content_removals_change_seq"), ["change_seq"], unique=False
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
        op.execute(_PG_TRIGGER)
    else:
        op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS trg_content_items_removal ON content_items")
        op.execute("DROP FUNCTION IF EXISTS herald_record_content_removal()")
    else:
        op.execute("DROP TRIGGER IF EXISTS trg_content_items_removal")
    with op.batch_alter_table("content_removals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_content_removals_change_seq"))
    op.drop_table("content_removals")
