"""The search port and its wiring: ``get_search(runtime)`` returns this runtime's search index.

Two adapters implement the port (the contract tests in ``tests/search/test_contract.py`` run
against each):

- ``herald.search.embedded.EmbeddedSearch``: Tantivy + usearch under ``HERALD_HOME/index``, kept
  in step with the database's change sequence, whichever database holds the state (SQLite, or
  PostgreSQL as the system of record for every API process on every machine);
- ``herald.search.postgres.PostgresSearch``: the lexical index inside PostgreSQL
  (tsvector/GIN), for API processes that keep nothing on local disk; vectors per process.

``HERALD_SEARCH_BACKEND`` picks one; ``auto`` (the default) is the embedded index.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from herald.entities import repository as entity_repository
from herald.search.embedded import EmbeddedSearch
from herald.search.embedding import CachedQueryEncoder
from herald.search.feed import latest_change
from herald.search.lexical import LexicalIndex, discard_unusable
from herald.search.postgres import PostgresSearch
from herald.search.projection import POSTGRES_MARGIN
from herald.search.rerank import default_model
from herald.search.types import SearchHit, SearchRequest

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

SERVICE = "search"
BACKENDS = ("auto", "embedded", "postgresql")
PERSIST_SECONDS = 300.0  # at most this often a process saves its vector graph (and at exit)


class SearchIndex(Protocol):
    """The search port: what monitors, the API and the CLI use."""

    name: str

    def search(self, session: Session, request: SearchRequest) -> list[SearchHit]:
        """Hits over the threshold, best first (catches the index up with the database first)."""
        ...

    def catch_up(self, session: Session, *, shared_only: bool = False) -> int:
        """Apply the database's changes; the number of items applied. ``shared_only``: only
        the index shared by every process, not this process's vectors."""
        ...

    def clear(self) -> None:
        """Empty the index (``herald index rebuild`` then catches up from scratch)."""
        ...

    def persist(self) -> None: ...

    def close(self) -> None: ...


class SearchService:
    """The runtime's search index, with periodic saving of its per-process state."""

    def __init__(self, index: SearchIndex, encoder: CachedQueryEncoder) -> None:
        self.index = index
        self.encoder = encoder
        self._last_persist = time.monotonic()
        self._persist_lock = threading.Lock()

    @property
    def backend(self) -> str:
        return self.index.name

    def search(self, session: Session, request: SearchRequest) -> list[SearchHit]:
        if request.entity_ids:
            # An entity merged into another answers for it (a monitor saved with the old id).
            current = tuple(entity_repository.current_ids(session, request.entity_ids))
            request = replace(request, entity_ids=current)
        hits = self.index.search(session, request)
        self.persist_if_due()
        return hits

    def catch_up(self, session: Session, *, shared_only: bool = False) -> int:
        return self.index.catch_up(session, shared_only=shared_only)

    def rebuild(self, session: Session) -> int:
        self.index.clear()
        applied = self.index.catch_up(session)
        self.persist()
        return applied

    def warm_up(self) -> None:
        """Run the query embedding once, so the first search does not pay for loading."""
        self.encoder.encode_query("warm up")

    def persist_if_due(self) -> None:
        """Save the vector snapshot in the background when the last save is old enough."""
        if time.monotonic() - self._last_persist < PERSIST_SECONDS:
            return
        if not self._persist_lock.acquire(blocking=False):
            return  # a save is running
        self._last_persist = time.monotonic()
        self._persist_lock.release()
        threading.Thread(target=self._persist_quietly, daemon=True).start()

    def _persist_quietly(self) -> None:
        try:
            self.persist()
        except Exception:  # a failed save only costs a longer catch-up at the next start
            log.exception("could not save the vector index")

    def persist(self) -> None:
        with self._persist_lock:
            self.index.persist()
            self._last_persist = time.monotonic()

    def close(self) -> None:
        try:
            self.persist()
        except Exception:  # a failed save only costs a longer catch-up at the next start
            log.exception("could not save the vector index")
        self.index.close()


def choose_backend(runtime: Runtime) -> str:
    wanted = runtime.settings.search_backend
    if wanted == "auto":
        # Also on PostgreSQL: a local index synced from the database answers three to four
        # times faster than ranking inside it (docs/dev/benchmark-log.md, issue 41).
        return "embedded"
    if wanted == "postgresql" and runtime.backend != "postgresql":
        raise ValueError("HERALD_SEARCH_BACKEND=postgresql needs the state on PostgreSQL")
    return wanted


def build_search(runtime: Runtime) -> SearchService:
    from herald.enrich.embedder import get_embedder

    encoder = CachedQueryEncoder(
        lambda: get_embedder(runtime), cache_size=runtime.settings.search_query_cache
    )
    model = default_model()
    margin = POSTGRES_MARGIN if runtime.backend == "postgresql" else 0
    index_dir = runtime.settings.index_dir

    def latest() -> int | None:
        try:
            with runtime.sessions.read() as session:  # the primary, never a replica behind it
                return latest_change(session)
        except SQLAlchemyError:  # the primary is down: keep the index (replicas may answer)
            log.warning("could not compare the search index with the database", exc_info=True)
            return None

    index: PostgresSearch | EmbeddedSearch
    if choose_backend(runtime) == "postgresql":
        index = PostgresSearch(
            runtime.sessions,
            index_dir,
            encoder=encoder,
            model=model,
            margin=margin,
            latest_change=latest,
        )
    else:
        index = EmbeddedSearch(
            index_dir, encoder=encoder, model=model, margin=margin, latest_change=latest
        )
    # Indexes built from a newer state of the data (the database was restored or copied since)
    # start again from the database instead of missing its new writes.
    index.drop_if_ahead(latest)
    service = SearchService(index, encoder)
    runtime.on_close(service.close)
    return service


def check_reachable(runtime: Runtime) -> None:
    """Cheap readiness: the index storage opens (without loading the embedding model)."""
    if choose_backend(runtime) == "postgresql":
        with runtime.sessions.read() as session:
            session.execute(text("SELECT 1 FROM content_search_documents LIMIT 1"))
        return
    lexical = LexicalIndex(runtime.settings.index_dir / "lexical")
    lexical.applied_seq()


def discard_unusable_index(runtime: Runtime) -> bool:
    """Before a rebuild: delete this home's embedded lexical index if this version cannot open
    it (an older schema, a marker left unreadable); True if it did."""
    if choose_backend(runtime) != "embedded":
        return False
    return discard_unusable(runtime.settings.index_dir / "lexical")


def get_search(runtime: Runtime) -> SearchService:
    return runtime.service(SERVICE, lambda: build_search(runtime))
