"""The embedded search adapter (default): Tantivy and usearch under ``HERALD_HOME/index``.

Both indexes are projections of the database. The Tantivy directory is shared by every process
on the data directory (one writer at a time, readers reload); the vector graph is per process,
synced from the embeddings in the database and saved with its watermark for a fast start.
Every search first catches both up (one indexed query when nothing changed).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from herald.search.dense import DenseSide
from herald.search.embedding import CachedQueryEncoder
from herald.search.feed import ChangeSummary
from herald.search.filters import IndexFilter
from herald.search.hybrid import HybridRanker, RetrievalSettings
from herald.search.lexical import LexicalIndex
from herald.search.lexical_view import TantivyScope
from herald.search.projection import ProjectionSync, TantivyProjection
from herald.search.query_syntax import parse_query
from herald.search.rerank import RelevanceModel
from herald.search.types import SearchHit, SearchRequest
from herald.search.vectors import VectorIndex


class EmbeddedSearch:
    name = "embedded"

    def __init__(
        self,
        index_dir: Path | None,
        *,
        encoder: CachedQueryEncoder,
        model: RelevanceModel,
        margin: int,
        settings: RetrievalSettings | None = None,
    ) -> None:
        self.lexical = LexicalIndex(None if index_dir is None else index_dir / "lexical")
        self.model = model
        self.dense = DenseSide(
            index_dir, encoder=encoder, model=model, margin=margin, settings=settings
        )
        self._lexical_sync = ProjectionSync(
            TantivyProjection(self.lexical), margin=margin, embedding_model=None
        )

    @property
    def vectors(self) -> VectorIndex:
        return self.dense.vectors

    @property
    def ranker(self) -> HybridRanker:
        return self.dense.ranker

    def catch_up(self, session: Session, *, shared_only: bool = False) -> int:
        """Apply the database's changes; ``shared_only``: the Tantivy index, not this process's
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
        if self.lexical.applied_seq() == 0:
            # Nothing was ever indexed: no result is possible, and the vectors and the embedding
            # model (seconds to load) are left for the first search that can find something.
            return []
        self.dense.sync.catch_up(session, memo)
        scope = TantivyScope(self.lexical, self.model.boosts, parsed, flt)
        return self.dense.ranker.hits(scope, parsed, request.limit)

    def clear(self) -> None:
        """Empty both indexes (a rebuild then re-applies every change)."""
        with self.lexical.writer() as writer:
            writer.clear()
            writer.set_watermark(0)
        self._lexical_sync.reset()
        self.dense.clear()

    def persist(self) -> None:
        """Save this process's vector graph with its watermark (for a fast restart)."""
        self.dense.persist()

    def close(self) -> None:
        self.dense.close()
