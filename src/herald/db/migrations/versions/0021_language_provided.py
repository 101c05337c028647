"""language provided: whether an item's language came from its source or from detection

Revision ID: 0021_language_provided
Revises: 0020_content_tombstones
Create Date: 2026-11-30 09:40:00.000000

``content_items.language`` holds the language a source gave or, when it gave none, the one
enrichment detected. ``language_provided`` tells them apart: enrichment detects again (on an
update of the item, on ``herald enrich --rebuild``) only when it is false, and never replaces a
given language.

Rows stored before this revision: the two kinds were written to the same column, and nothing
stored tells them apart, so

- a row without a language is ``false`` (there is nothing to keep; detection runs as before);
- a row with a language is ``true``, as if the source had given it. Marking them ``false`` would
  let the next enrichment of such an item (an update, a rebuild, a newly confirmed entity it
  names) replace a language its source gave with a detected one, and the source's language would
  not come back (the source sending the same item again changes nothing). ``true`` keeps today's
  behaviour for those rows: their language stays what it is until the source gives another one.
  Items ingested or updated from this version on get the flag from what their source gave.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_language_provided"
down_revision: str | Sequence[str] | None = "0020_content_tombstones"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLEs on both backends: a batch would copy the table on SQLite and lose its
    # triggers (0013_search_removals).
    if op.get_bind().dialect.name == "postgresql":
        # Added as true (a constant default is stored without rewriting the table), then the rows
        # without a language, few in a store that enrichment keeps up with, made false.
        op.add_column("content_items", _column(sa.true()))
        op.execute("UPDATE content_items SET language_provided = false WHERE language IS NULL")
        op.alter_column("content_items", "language_provided", server_default=sa.false())
        return
    op.add_column("content_items", _column(sa.false()))
    op.execute("UPDATE content_items SET language_provided = 1 WHERE language IS NOT NULL")


def _column(default: sa.sql.expression.ColumnElement[bool]) -> sa.Column[bool]:
    return sa.Column("language_provided", sa.Boolean(), server_default=default, nullable=False)


def downgrade() -> None:
    # SQLite 3.35+ drops a column in place.
    op.drop_column("content_items", "language_provided")
