"""How far the search index is behind the database, read without changing either.

`herald index status` uses this. Searching or ``catch_up`` would apply the pending changes (and
save the vector graph): a status check must not, so it reads the shared index's watermark and
counts the content changes above it, and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from herald.db.identity import read_identity
from herald.db.removal_logs import pruned_through
from herald.search.feed import latest_change, summarize
from herald.search.lexical import _META_FILE, LexicalIndex, recorded_database
from herald.search.postgres import _read_watermark
from herald.search.service import choose_backend

if TYPE_CHECKING:
    from herald.runtime import Runtime


@dataclass(frozen=True, slots=True)
class IndexStatus:
    backend: str  # embedded or postgresql
    exists: bool  # False: no index yet (the first search or `herald index rebuild` builds it)
    applied_seq: int  # the last content change the shared index reflects
    latest_seq: int  # the last content change in the database
    pending: int  # items changed after ``applied_seq``: the next search applies them
    problem: str | None = None  # the index cannot be opened as it is (e.g. an old schema)
    database: str | None = None  # the database's identity (None: migrations pending)
    built_from: str | None = None  # the identity the index recorded (None: none yet)

    @property
    def current(self) -> bool:
        return self.exists and self.problem is None and self.pending == 0

    @property
    def same_database(self) -> bool | None:
        """Whether the index was built from this database (None: one of them does not say)."""
        if self.database is None or self.built_from is None:
            return None
        return self.database == self.built_from


def index_status(runtime: Runtime) -> IndexStatus:
    """The shared index against the database: Tantivy's watermark (embedded) or the projection
    row (PostgreSQL). Per-process vector graphs catch up by themselves when a process starts."""
    backend = choose_backend(runtime)
    problem = None
    with runtime.sessions.read() as session:
        database = built_from = read_identity(session)
        if backend == "postgresql":  # inside the database: restored and copied with it
            applied = _read_watermark(session)
            exists = True
        else:
            path = runtime.settings.index_dir / "lexical"
            exists = (path / _META_FILE).is_file()  # checked first: opening would create it
            built_from = recorded_database(path) if exists else None
            applied = 0
            if exists:
                try:
                    applied = LexicalIndex(path).applied_seq()
                except (RuntimeError, ValueError) as exc:
                    problem = str(exc)
        changes = summarize(session, applied)
        latest = latest_change(session)
        pruned = pruned_through(session)
    if problem is None and None not in (database, built_from) and database != built_from:
        problem = (
            f"the index was built from another database (identity {built_from}, this one is "
            f"{database}: a restore or a copy made since, or HERALD_DATABASE_URL changed); the "
            "next search or indexing job empties it and rebuilds it from this database, "
            "`herald index rebuild` at once"
        )
    if problem is None and applied > latest:
        problem = (
            f"the index has applied changes up to {applied}, the database's last change is "
            f"{latest}: it was built from a newer state of the data (a restored or copied "
            "database); run `herald index rebuild` (the next start of Herald empties it too)"
        )
    if problem is None and 0 < applied < pruned:
        problem = (
            f"search index too old: it has applied changes up to {applied}, and removals up to "
            f"{pruned} were pruned from the database (kept HERALD_HISTORY_DAYS days): deleted "
            "items it may hold can no longer be found out; run `herald index rebuild` (the next "
            "search or indexing job rebuilds it too)"
        )
    return IndexStatus(
        backend=backend,
        exists=exists,
        applied_seq=applied,
        latest_seq=latest,
        pending=changes.count,
        problem=problem,
        database=database,
        built_from=built_from,
    )
