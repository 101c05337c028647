"""fingerprint bands: deleted with their fingerprint by a trigger, not checked by a foreign key

Revision ID: 0017_fingerprint_bands_trigger
Revises: 0016_source_retention
Create Date: 2026-11-29 17:30:00.000000

Each stored fingerprint has 42 band rows, written only by ingestion right after the fingerprint
itself, in the same transaction. Their foreign key made PostgreSQL check every one of them
against ``ingest_fingerprints`` (a lookup per row): more than half of what the server spent on
storing an item's bands. What the key also did, deleting the bands with their fingerprint (and so
with their content item), is now a trigger on ``ingest_fingerprints``, on both databases.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0017_fingerprint_bands_trigger"
down_revision: str | Sequence[str] | None = "0016_source_retention"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FK = "fk_ingest_fingerprint_bands_content_id_ingest_fingerprints"

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION herald_drop_fingerprint_bands() RETURNS trigger AS $$
BEGIN
    DELETE FROM ingest_fingerprint_bands WHERE content_id = OLD.content_id;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""

_PG_TRIGGER = """
CREATE TRIGGER trg_ingest_fingerprints_bands AFTER DELETE ON ingest_fingerprints
FOR EACH ROW EXECUTE FUNCTION herald_drop_fingerprint_bands()
"""

_SQLITE_TRIGGER = """
CREATE TRIGGER trg_ingest_fingerprints_bands AFTER DELETE ON ingest_fingerprints
FOR EACH ROW BEGIN
    DELETE FROM ingest_fingerprint_bands WHERE content_id = OLD.content_id;
END
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(_FK, "ingest_fingerprint_bands", type_="foreignkey")
        op.execute(_PG_FUNCTION)
        op.execute(_PG_TRIGGER)
        return
    with op.batch_alter_table("ingest_fingerprint_bands", schema=None) as batch_op:
        batch_op.drop_constraint(_FK, type_="foreignkey")
    op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.execute("DROP TRIGGER IF EXISTS trg_ingest_fingerprints_bands ON ingest_fingerprints")
        op.execute("DROP FUNCTION IF EXISTS herald_drop_fingerprint_bands()")
    else:
        op.execute("DROP TRIGGER IF EXISTS trg_ingest_fingerprints_bands")
    op.execute(
        "DELETE FROM ingest_fingerprint_bands WHERE content_id NOT IN "
        "(SELECT content_id FROM ingest_fingerprints)"
    )
    with op.batch_alter_table("ingest_fingerprint_bands", schema=None) as batch_op:
        batch_op.create_foreign_key(
            _FK, "ingest_fingerprints", ["content_id"], ["content_id"], ondelete="CASCADE"
        )
