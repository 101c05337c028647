"""cluster article keys: what each counted article added to the clustering statistics

Revision ID: 0028_cluster_article_keys
Revises: 0027_removal_seq_in_flight
Create Date: 2026-11-30 20:10:00.000000

``cluster_article_keys`` holds, per counted article, the keys it added to ``cluster_term_stats``.
An update of the article's item moves its counts from the old keys to the new ones, and deleting
its last copy takes away exactly those: before, a deletion took away the keys of the item's
current version, so the keys of earlier versions stayed counted for good (the table grew with
updates) and other articles' counts went down. Articles counted before this revision have no
row: they keep the old behaviour until they are deleted (``herald clusters rebuild`` recounts
everything). ``ix_cluster_term_stats_emptied`` finds the counts an update left at zero.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from herald.db.base import JSONType

revision: str = "0028_cluster_article_keys"
down_revision: str | Sequence[str] | None = "0027_removal_seq_in_flight"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "cluster_article_keys",
        sa.Column("article_id", sa.String(length=40), primary_key=True),
        sa.Column("keys", JSONType, nullable=False),
    )
    op.create_index(
        "ix_cluster_term_stats_emptied",
        "cluster_term_stats",
        ["bag", "key"],
        sqlite_where=sa.text("documents <= 0"),
        postgresql_where=sa.text("documents <= 0"),
    )


def downgrade() -> None:
    op.drop_index("ix_cluster_term_stats_emptied", table_name="cluster_term_stats")
    op.drop_table("cluster_article_keys")
