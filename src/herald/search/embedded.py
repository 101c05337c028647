"""The embedded search adapter (default): Tantivy and usearch under ``HERALD_HOME/index``.

Both indexes are projections of the database. The Tantivy directory is shared by every process
on the data directory (one writer at a time, readers reload); the vector graph is per process,
synced from the embeddings in the database and saved with its watermark for a fast start.
Every search first catches both up (one indexed query when nothing changed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import Session

from herald.search.adapter import HybridAdapter
from herald.search.dense import DenseSide
from herald.search.embedding import CachedQueryEncoder
from herald.search.filters import IndexFilter
from herald.search.hybrid import RetrievalSettings
from herald.search.lexical import LexicalIndex
from herald.search.lexical_view import TantivyScope
from herald.search.projection import ProjectionSync, TantivyProjection
from herald.search.query_syntax import ParsedQuery
from herald.search.rerank import RelevanceModel
from herald.search.scope import LexicalScope


class EmbeddedSearch(HybridAdapter):
    name = "embedded"

    def __init__(
        self,
        index_dir: Path | None,
        *,
        encoder: CachedQueryEncoder,
        model: RelevanceModel,
        margin: int,
        settings: RetrievalSettings | None = None,
        latest_change: Callable[[], int | None] | None = None,
    ) -> None:
        self.lexical = LexicalIndex(None if index_dir is None else index_dir / "lexical")
        super().__init__(
            lexical_sync=ProjectionSync(
                TantivyProjection(self.lexical, one_snapshot=margin == 0),
                margin=margin,
                embedding_model=None,
            ),
            dense=DenseSide(
                index_dir,
                encoder=encoder,
                model=model,
                margin=margin,
                settings=settings,
                latest_change=latest_change,
            ),
            model=model,
        )

    def _lexical_applied_seq(self) -> int:
        return self.lexical.applied_seq()

    def _clear_lexical(self) -> None:
        with self.lexical.writer() as writer:
            writer.clear()
            writer.set_watermark(0)

    def _scope(self, session: Session, parsed: ParsedQuery, flt: IndexFilter) -> LexicalScope:
        del session  # the Tantivy index is read directly
        return TantivyScope(self.lexical, self.model.boosts, parsed, flt)
