"""page fetch failures: failed tries of a feed teaser's article page

Revision ID: 0022_page_fetch_failures
Revises: 0021_language_provided
Create Date: 2026-11-30 10:00:00.000000

``content_items.page_fetch_failures`` counts the failed tries of an item's article page while
its body is the feed's teaser (0 when the page was fetched or never needed). Polls fetch the
page again while the count is below its bound (``herald.ingest.page_retries``). Rows stored
before this revision are 0: which of them kept a teaser after a failed fetch is not recorded,
so they are not fetched again, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_page_fetch_failures"
down_revision: str | Sequence[str] | None = "0021_language_provided"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ALTER TABLE on both backends: a batch would copy the table on SQLite and lose its
    # triggers (0013_search_removals). A constant default is stored without rewriting the table.
    op.add_column(
        "content_items",
        sa.Column("page_fetch_failures", sa.Integer(), server_default="0", nullable=False),
    )


def downgrade() -> None:
    # SQLite 3.35+ drops a column in place.
    op.drop_column("content_items", "page_fetch_failures")
