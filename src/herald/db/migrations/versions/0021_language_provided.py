"""language provided: whether an item's language came from its source or from detection

Revision ID: 0021_language_provided
Revises: 0020_content_tombstones
Create Date: 2026-11-30 09:40:00.000000

``content_items.language`` holds the language a source gave or, when it gave none, the one
enrichment detected. ``language_provided`` tells them apart: enrichment detects again (on an
update of the item, on ``herald enrich --rebuild``) only when it is false, and never replaces a
given language.

Rows stored before this revision: both kinds were written to the same column, so

- a row without a language is ``false`` (there is nothing to keep; detection runs as before);
- a news or wire row ingested once (``version`` 1) whose content hash is that of the item with
  no language is ``false``: its source gave none, so the stored one was detected. Ingestion hashes
  the language with the rest of the item, and ingestion and enrichment are the only writers of
  the column, so this cannot take a given language for a detected one. The upgrade reads each
  such row once to check;
- every other row with a language is ``true``, as if its source had given it: an updated item
  may keep a language an earlier version gave, and a podcast's hash cannot be rebuilt from what
  is stored. Marking these ``false`` would let their next enrichment (an update, a rebuild, a
  newly confirmed entity they name) replace a language a source gave with a detected one, which
  would not come back (the source sending the same item again changes nothing). ``true`` keeps
  the behaviour of earlier versions for them: their language stays until a source gives another.

Items ingested or updated from this revision on get the flag from what their source gave.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from herald.db.base import JSONType, UTCDateTime

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
    else:
        op.add_column("content_items", _column(sa.false()))
        op.execute("UPDATE content_items SET language_provided = 1 WHERE language IS NOT NULL")
    _mark_detected(op.get_bind())


def _column(default: sa.sql.expression.ColumnElement[bool]) -> sa.Column[bool]:
    return sa.Column("language_provided", sa.Boolean(), server_default=default, nullable=False)


_ITEMS = sa.table(
    "content_items",
    sa.column("id", sa.String()),
    sa.column("media_type", sa.String()),
    sa.column("url", sa.Text()),
    sa.column("external_id", sa.String()),
    sa.column("source_name", sa.String()),
    sa.column("source_domain", sa.String()),
    sa.column("title", sa.Text()),
    sa.column("authors", JSONType),
    sa.column("language", sa.String()),
    sa.column("language_provided", sa.Boolean()),
    sa.column("published_at", UTCDateTime()),
    sa.column("body", sa.Text()),
    sa.column("transcript_segments", JSONType),
    sa.column("summary", sa.Text()),
    sa.column("summary_provided", sa.Boolean()),
    sa.column("content_hash", sa.String()),
    sa.column("episode_id", sa.String()),
    sa.column("audio_url", sa.Text()),
    sa.column("duration_seconds", sa.Integer()),
    sa.column("version", sa.Integer()),
)
_BATCH = 500


def _mark_detected(bind: sa.Connection) -> None:
    """Make ``false`` the news and wire rows whose one ingestion gave no language."""
    last = ""
    while True:
        rows = bind.execute(
            sa.select(_ITEMS)
            .where(
                _ITEMS.c.id > last,
                _ITEMS.c.version == 1,
                _ITEMS.c.language.is_not(None),
                _ITEMS.c.media_type.in_(("news", "wire")),
            )
            .order_by(_ITEMS.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        last = rows[-1].id
        detected = [row.id for row in rows if row.content_hash in _hashes_without_language(row)]
        if detected:
            bind.execute(
                sa.update(_ITEMS).where(_ITEMS.c.id.in_(detected)).values(language_provided=False)
            )


def _hashes_without_language(row: sa.Row[Any]) -> set[str]:
    """The content hashes ingestion gave the stored item had its source given no language.

    A copy of ingestion's content hash as it stands at this revision (it has not changed since
    the first release), over the stored fields. The date is hashed as null when the source gave
    none, and a missing body as null: both are tried. A row this does not reproduce (a name cut
    to its column's length, a rounded duration) matches none and stays ``true``.
    """
    segments = [
        [s.get("start"), s.get("end"), s.get("speaker"), s.get("text")]
        for s in row.transcript_segments or ()
    ]
    found = set()
    for published in (row.published_at.isoformat(), None):
        for body in (row.body, None) if row.body == "" else (row.body,):
            payload = {
                "media_type": row.media_type,
                "title": row.title,
                "url": row.url,
                "external_id": row.external_id,
                "source": [row.source_name, row.source_domain],
                "authors": list(row.authors or ()),
                "language": None,
                "published": published,
                "summary": row.summary if row.summary_provided else None,
                "body": body,
                "transcript": None,
                "segments": segments,
                "podcast": None,
                "episode_id": row.episode_id,
                "audio_url": row.audio_url,
                "duration": row.duration_seconds,
            }
            encoded = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
            found.add(hashlib.sha256(encoded).hexdigest())
    return found


def downgrade() -> None:
    # SQLite 3.35+ drops a column in place.
    op.drop_column("content_items", "language_provided")
