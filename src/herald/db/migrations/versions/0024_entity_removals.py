"""entity removals: every row deleted from entities is recorded with a number

Revision ID: 0024_entity_removals
Revises: 0023_removal_marks
Create Date: 2026-11-30 15:00:00.000000

A trigger on ``entities`` records each deleted row in ``entity_removals`` with a new number
(PostgreSQL: the ``entity_removal_seq`` sequence; SQLite, one writer at a time: one above the
highest recorded). The in-memory entity views read the removals above the last number they read
instead of keeping every id they loaded. Entities deleted before this revision are not recorded:
a process started after the upgrade loads its views from the rows that exist.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_entity_removals"
down_revision: str | Sequence[str] | None = "0023_removal_marks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION herald_record_entity_removal() RETURNS trigger AS $$
BEGIN
    INSERT INTO entity_removals (entity_id, seq)
    VALUES (OLD.id, nextval('entity_removal_seq'))
    ON CONFLICT (entity_id) DO UPDATE SET seq = excluded.seq;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""

_PG_TRIGGER = """
CREATE TRIGGER trg_entities_removal AFTER DELETE ON entities
FOR EACH ROW EXECUTE FUNCTION herald_record_entity_removal()
"""

_SQLITE_TRIGGER = """
CREATE TRIGGER trg_entities_removal AFTER DELETE ON entities
FOR EACH ROW BEGIN
    INSERT OR REPLACE INTO entity_removals (entity_id, seq)
    VALUES (OLD.id, coalesce((SELECT max(seq) FROM entity_removals), 0) + 1);
END
"""


def upgrade() -> None:
    op.create_table(
        "entity_removals",
        sa.Column("entity_id", sa.String(length=40), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("entity_id", name=op.f("pk_entity_removals")),
    )
    op.create_index(op.f("ix_entity_removals_seq"), "entity_removals", ["seq"], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE IF NOT EXISTS entity_removal_seq")
        op.execute(_PG_FUNCTION)
        op.execute(_PG_TRIGGER)
    else:
        op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS trg_entities_removal ON entities")
        op.execute("DROP FUNCTION IF EXISTS herald_record_entity_removal()")
        op.execute("DROP SEQUENCE IF EXISTS entity_removal_seq")
    else:
        op.execute("DROP TRIGGER IF EXISTS trg_entities_removal")
    op.drop_index(op.f("ix_entity_removals_seq"), table_name="entity_removals")
    op.drop_table("entity_removals")
