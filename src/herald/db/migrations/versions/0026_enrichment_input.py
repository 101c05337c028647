"""enrichment input: the hash of what an item's stored enrichment was made from

Revision ID: 0026_enrichment_input
Revises: 0025_source_fetch_url
Create Date: 2026-11-30 18:00:00.000000

``content_items.enrichment_input`` is the hash of what enrichment read of the item (its media
type, title, text, given language and summary, source: ``herald.enrich.inputs``) when
it made the enrichment the row holds, or null. An update whose input hash is the stored one (a
new ``audio_url``, ``authors``, ...) keeps the enrichment instead of running it again. Rows
enriched before this revision have none: their next update is enriched again, once, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_enrichment_input"
down_revision: str | Sequence[str] | None = "0025_source_fetch_url"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ALTER TABLE on both backends: a batch would copy the table on SQLite and lose its
    # triggers (0013_search_removals). A nullable column without default rewrites no row.
    op.add_column(
        "content_items", sa.Column("enrichment_input", sa.String(length=64), nullable=True)
    )


def downgrade() -> None:
    # SQLite 3.35+ drops a column in place.
    op.drop_column("content_items", "enrichment_input")
