"""What both index adapters share: their own lexical projection, this process's dense side, and
the search itself (catch up, then hybrid retrieval and the second-stage score).

An adapter only says where its lexical index lives: how far it has applied the database's
changes, how to empty it, and the lexical scope a search runs in.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable

from sqlalchemy.orm import Session

from herald.search.dense import DenseSide
from herald.search.feed import ChangeSummary
from herald.search.filters import IndexFilter
from herald.search.hybrid import HybridRanker
from herald.search.projection import ProjectionSync
from herald.search.query_syntax import ParsedQuery, parse_query
from herald.search.rerank import RelevanceModel
from herald.search.scope import LexicalScope
from herald.search.types import SearchHit, SearchRequest
from herald.search.vectors import VectorIndex

log = logging.getLogger(__name__)


class HybridAdapter(ABC):
    name: str

    def __init__(
        self, *, lexical_sync: ProjectionSync, dense: DenseSide, model: RelevanceModel
    ) -> None:
        self._lexical_sync = lexical_sync
        self.dense = dense
        self.model = model

    @abstractmethod
    def _lexical_applied_seq(self) -> int:
        """The highest change sequence number the lexical index has applied."""

    @abstractmethod
    def _clear_lexical(self) -> None:
        """Empty the lexical index and its watermark."""

    @abstractmethod
    def _scope(self, session: Session, parsed: ParsedQuery, flt: IndexFilter) -> LexicalScope:
        """The lexical side of one search."""

    @property
    def vectors(self) -> VectorIndex:
        return self.dense.vectors

    @property
    def ranker(self) -> HybridRanker:
        return self.dense.ranker

    def catch_up(self, session: Session, *, shared_only: bool = False) -> int:
        """Apply the database's changes; ``shared_only``: the lexical index, not this process's
        vectors (what a process that does not search needs). The number of items applied."""
        memo: dict[int, ChangeSummary] = {}
        applied = self._lexical_sync.catch_up(session, memo)
        if not shared_only:
            applied = max(applied, self.dense.sync.catch_up(session, memo))
        return applied

    def search(self, session: Session, request: SearchRequest) -> list[SearchHit]:
        flt = IndexFilter.from_request(request)
        parsed = parse_query(request.query)
        if flt.matches_nothing or parsed.is_empty:
            return []
        memo: dict[int, ChangeSummary] = {}
        self._lexical_sync.catch_up(session, memo)
        if self._lexical_applied_seq() == 0:
            # Nothing was ever indexed: no result is possible, and the vectors and the embedding
            # model (seconds to load) are left for the first search that can find something.
            return []
        self.dense.sync.catch_up(session, memo)
        scope = self._scope(session, parsed, flt)
        return self.dense.ranker.hits(scope, parsed, request.limit, exhaustive=request.exhaustive)

    def drop_if_ahead(self, latest_change: Callable[[], int | None]) -> bool:
        """Empty the lexical index if it has applied changes the database does not have (its
        watermark is above ``latest_change()``, the database's last change, read on the primary):
        it was built from a newer state of the data, and the numbers of the changes it holds are
        given to new writes again. Kept, it would miss those writes and find what the database
        no longer has. The watermark is read first, so another process's catch-up meanwhile only
        raises the database's number above it."""
        # An index just opened (the PostgreSQL lexical table, restored with the database, is
        # never ahead: its watermark is read at its first catch-up, 0 until then).
        applied = self._lexical_applied_seq()
        if applied == 0:
            return False
        latest = latest_change()  # None: unknown (the database did not answer), kept
        if latest is None or applied <= latest:
            return False
        log.warning(
            "the search index has applied changes the database does not have (a restored or "
            "copied database): emptied, it is rebuilt from the database",
            extra={"index": self.name, "applied_seq": applied, "latest_change": latest},
        )
        self._clear_lexical()
        self._lexical_sync.reset()
        return True

    def clear(self) -> None:
        """Empty both indexes (a rebuild then re-applies every change)."""
        self._clear_lexical()
        self._lexical_sync.reset()
        self.dense.clear()

    def persist(self) -> None:
        """Save this process's vector graph with its watermark (for a fast restart)."""
        self.dense.persist()

    def close(self) -> None:
        self.dense.close()
