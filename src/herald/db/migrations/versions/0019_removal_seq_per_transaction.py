"""removal sequence per transaction: a deletion takes one change sequence number, not one per row

Revision ID: 0019_removal_seq_per_transaction
Revises: 0018_entity_status
Create Date: 2026-11-30 06:00:00.000000

PostgreSQL hands out change sequence numbers before commit, and search projections re-read a
margin of numbers below their watermark to catch a transaction that commits a lower number
late. The trigger recording deleted rows drew a number per row: a deletion of a few thousand
items moved the sequence past the margin while another transaction (an ingested batch, an
enrichment) held its number, and that transaction's change, committed afterwards, was never
applied to the search index. The trigger now draws one number per transaction and gives it to
every row the transaction deletes (kept in a transaction-local setting). SQLite is unchanged:
its writers commit one at a time, in sequence order.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0019_removal_seq_per_transaction"
down_revision: str | Sequence[str] | None = "0018_entity_status"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# After the transaction the setting reads '' (not NULL): nullif covers both.
_PER_TRANSACTION = """
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

_PER_ROW = """
CREATE OR REPLACE FUNCTION herald_record_content_removal() RETURNS trigger AS $$
BEGIN
    INSERT INTO content_removals (content_id, change_seq)
    VALUES (OLD.id, nextval('content_change_seq'))
    ON CONFLICT (content_id) DO UPDATE SET change_seq = excluded.change_seq;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PER_TRANSACTION)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PER_ROW)
