"""entity removals in flight: a deletion holds an advisory lock on its removal number until it ends

Revision ID: 0029_entity_removal_in_flight
Revises: 0028_cluster_article_keys
Create Date: 2026-11-30 21:00:00.000000

PostgreSQL draws an entity's removal number (``entity_removal_seq``) before commit. The
in-memory entity views re-read a fixed margin of numbers below the last one they read, so a
deletion that stayed open while more removals than the margin were numbered and committed
committed below it, and the deleted entity stayed in the views (linked to, found by search)
until the process restarted. The trigger now draws one number per transaction and holds a shared
advisory lock on it until the transaction ends (key herald.db.in_flight.ENTITY_REMOVAL_LOCK_BASE
plus the number); the views re-read from the lowest number still locked. One number per
transaction keeps a deletion of many entities to one lock. SQLite is unchanged: its writers
commit in the order of their numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0029_entity_removal_in_flight"
down_revision: str | Sequence[str] | None = "0028_cluster_article_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The key is herald.db.in_flight.ENTITY_REMOVAL_LOCK_BASE plus the number (kept literal: a
# migration does not change when the code does).
_LOCKED = """
CREATE OR REPLACE FUNCTION herald_record_entity_removal() RETURNS trigger AS $$
DECLARE
    seq bigint := nullif(current_setting('herald.entity_removal_seq', true), '')::bigint;
BEGIN
    IF seq IS NULL THEN
        seq := nextval('entity_removal_seq');
        PERFORM pg_advisory_xact_lock_shared(5207850019100557312 + seq);
        PERFORM set_config('herald.entity_removal_seq', seq::text, true);
    END IF;
    INSERT INTO entity_removals (entity_id, seq)
    VALUES (OLD.id, seq)
    ON CONFLICT (entity_id) DO UPDATE SET seq = excluded.seq;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql
"""

_UNLOCKED = """
CREATE OR REPLACE FUNCTION herald_record_entity_removal() RETURNS trigger AS $$
BEGIN
    INSERT INTO entity_removals (entity_id, seq)
    VALUES (OLD.id, nextval('entity_removal_seq'))
    ON CONFLICT (entity_id) DO UPDATE SET seq = excluded.seq;
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
