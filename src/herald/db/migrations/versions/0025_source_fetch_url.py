"""source fetch url: where a polled feed is fetched from after it moved for good

Revision ID: 0025_source_fetch_url
Revises: 0024_entity_removals
Create Date: 2026-11-30 17:00:00.000000

``ingest_sources.fetch_url`` is the URL a source's feed is fetched from once it answered with
permanent redirects only (301/308): the target of the chain. Null fetches the configured
``url``, which stays the source's identity. Sources stored before this revision are null: their
next poll that is redirected for good records the new address.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_source_fetch_url"
down_revision: str | Sequence[str] | None = "0024_entity_removals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ALTER TABLE on both backends: a nullable column is added without copying the table.
    op.add_column("ingest_sources", sa.Column("fetch_url", sa.Text(), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ drops a column in place.
    op.drop_column("ingest_sources", "fetch_url")
