"""removal sequence in flight: a deletion holds an advisory lock on its change number until it ends

Revision ID: 0027_removal_seq_in_flight
Revises: 0026_enrichment_input
Create Date: 2026-11-30 20:00:00.000000

PostgreSQL hands out change sequence numbers before commit. Search projections re-read a margin
of numbers below their watermark for late commits, but a transaction that stayed open while more
numbers than the margin were drawn and committed (a busy ingestion beside a deletion waiting for
a lock) committed below the margin, and its change never reached the search index (a deleted item
kept being found). Every transaction now holds a shared advisory lock on each number it draws
until it ends, and projections re-read from the lowest number still locked. Writes from Python
take it where they draw the number (herald.content.changes); this migration makes the trigger
recording deleted rows take it too. SQLite is unchanged: its writers commit in sequence order.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0027_removal_seq_in_flight"
down_revision: str | Sequence[str] | None = "0026_enrichment_input"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The key is herald.db.models.content.IN_FLIGHT_LOCK_BASE plus the number (kept literal: a
# migration does not change when the code does).
_LOCKED = """
CREATE OR REPLACE FUNCTION herald_record_content_removal() RETURNS trigger AS $$
DECLARE
    seq bigint := nullif(current_setting('herald.removal_seq', true), '')::bigint;
BEGIN
    IF seq IS NULL THEN
        seq := nextval('content_change_seq');
        PERFORM pg_advisory_xact_lock_shared(5207568544123846656 + seq);
        PERFORM set_config('herald.removal_seq', seq::text, true);
    END IF;
    INSERT INTO content_removals (content_id, change_seq)
    VALUES (OLD.id, seq)
    ON CONFLICT (content_id) DO UPDATE SET change_seq = excluded.change_seq;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""

_UNLOCKED = """
CREATE OR REPLACE FUNCTION herald_record_content_removal() RETURNS trigger AS $$
DECLARE
    seq bigint := nullif(current_setting('herald.removal_seq', true), '')::bigint;
BEGIN
    IF seq IS NULL THEN
        seq := nextval('content_change_seq');
        PERFORM set_config('herald.removal_seq', seq::text, true);
    END IF;
    INSERT INTO content_removals (content_id, change_seq)
    VALUES (OLD.id, seq)
    ON CONFLICT (content_id) DO UPDATE SET change_seq = excluded.change_seq;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_LOCKED)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_UNLOCKED)
