"""rate buckets unlogged: the shared request buckets skip the write-ahead log on PostgreSQL

Revision ID: 0014_scale_rate_buckets_unlogged
Revises: 0013_search_removals
Create Date: 2026-11-29 08:30:00.000000

Every API request on PostgreSQL takes a token from its key's bucket in ``rate_buckets`` and
commits. A logged table makes each of those commits wait for the write-ahead log to reach the
disk; an unlogged one does not. After a crash PostgreSQL empties an unlogged table: every
bucket starts full again, which only forgives the requests of the last minute. Streaming
replicas do not receive it, and nothing reads it there (every request takes its token on the
primary). SQLite keeps its buckets in the process: nothing changes there.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014_scale_rate_buckets_unlogged"
down_revision: str | Sequence[str] | None = "0013_search_removals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rate_buckets SET UNLOGGED")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rate_buckets SET LOGGED")
