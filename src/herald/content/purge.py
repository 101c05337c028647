"""Compaction after deletions: no file under ``HERALD_HOME`` keeps the text of deleted items.

A deleted row is gone from every read at once, but bytes can linger in files:

- the embedded Tantivy index marks a deleted document but keeps its terms in its segment until the
  segment is rewritten. The index is rebuilt from the database (safe while serving: searches
  answer from the database-backed catch-up meanwhile) and files no longer used are collected.
- SQLite leaves text in free space (earlier versions of an updated row) and in the write-ahead
  log. ``VACUUM`` rewrites the database without free space, and a truncating checkpoint empties
  the log. The checkpoint cannot finish while another connection holds an old snapshot (a long
  read in a serving process): the result says so, and running the purge again finishes it.

PostgreSQL keeps its data outside ``HERALD_HOME``; what ``VACUUM`` guarantees there is in
docs/operations.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from herald.search.embedded import EmbeddedSearch
from herald.search.service import get_search

if TYPE_CHECKING:
    from herald.runtime import Runtime


@dataclass(frozen=True, slots=True)
class PurgeReport:
    index_items: int | None  # items re-indexed in the local index (None: no local index here)
    vacuumed: bool  # SQLite: VACUUM ran
    checkpoint_complete: bool  # SQLite: the write-ahead log is empty (always True on PostgreSQL)


def purge_files(runtime: Runtime) -> PurgeReport:
    """Rewrite the local search index and (SQLite) the database so deleted text leaves the disk."""
    index_items = _rebuild_local_index(runtime)
    if not runtime.settings.is_sqlite:
        return PurgeReport(index_items=index_items, vacuumed=False, checkpoint_complete=True)
    complete = _vacuum_sqlite(runtime)
    return PurgeReport(index_items=index_items, vacuumed=True, checkpoint_complete=complete)


def _rebuild_local_index(runtime: Runtime) -> int | None:
    search = get_search(runtime)
    index = search.index
    if not isinstance(index, EmbeddedSearch):
        return None  # the PostgreSQL lexical table lost the rows with their items
    with runtime.sessions.read() as session:
        applied = search.rebuild(session)
    index.lexical.collect_garbage()
    return applied


def _vacuum_sqlite(runtime: Runtime) -> bool:
    # VACUUM cannot run inside a transaction: the driver connection, in autocommit mode.
    connection = runtime.engine.raw_connection()
    try:
        cursor = connection.cursor()
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cursor.execute("VACUUM")
        busy = cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        cursor.close()
    finally:
        connection.close()
    return int(busy) == 0
