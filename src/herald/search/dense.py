"""This process's dense side (vector index, its sync, the hybrid ranker), built on first search.

A process that never searches (a short `herald ingest`, a worker indexing changes) never loads
the vector snapshot: at a million items that is a gigabyte and seconds of start-up. The shared
lexical projection is all such a process needs to keep current.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from herald.search.embedding import CachedQueryEncoder
from herald.search.hybrid import HybridRanker, RetrievalSettings
from herald.search.projection import ProjectionSync, VectorProjection
from herald.search.rerank import RelevanceModel
from herald.search.vectors import VectorIndex

log = logging.getLogger(__name__)


class DenseSide:
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
        self._path = None if index_dir is None else index_dir / "vectors"
        # The database's last change, read on the primary: a saved graph that applied more is
        # not loaded (see HybridAdapter.drop_if_ahead).
        self._latest_change = latest_change
        self._encoder = encoder
        self._model = model
        self._margin = margin
        self._settings = settings
        self._lock = threading.Lock()
        self._built: tuple[VectorIndex, HybridRanker, ProjectionSync] | None = None

    def _get(self) -> tuple[VectorIndex, HybridRanker, ProjectionSync]:
        if self._built is None:
            with self._lock:
                if self._built is None:
                    embedder = self._encoder.embedder
                    vectors = VectorIndex(self._path, ndim=embedder.dimension)
                    self._drop_if_ahead(vectors)
                    ranker = HybridRanker(vectors, self._encoder, self._model, self._settings)
                    sync = ProjectionSync(
                        VectorProjection(vectors),
                        margin=self._margin,
                        embedding_model=embedder.model_name,
                    )
                    self._built = (vectors, ranker, sync)
        return self._built

    def _drop_if_ahead(self, vectors: VectorIndex) -> None:
        if self._latest_change is None or vectors.watermark == 0:
            return
        latest = self._latest_change()  # after the snapshot's watermark was read
        if latest is not None and vectors.watermark > latest:
            log.warning(
                "the saved vector graph has applied changes the database does not have (a "
                "restored or copied database): not used, it is rebuilt from the database",
                extra={"applied_seq": vectors.watermark, "latest_change": latest},
            )
            vectors.clear()

    @property
    def vectors(self) -> VectorIndex:
        return self._get()[0]

    @property
    def ranker(self) -> HybridRanker:
        return self._get()[1]

    @property
    def sync(self) -> ProjectionSync:
        return self._get()[2]

    @property
    def loaded(self) -> bool:
        return self._built is not None

    def clear(self) -> None:
        if self._built is not None:
            self._built[0].clear()
            self._built[2].reset()

    def persist(self) -> None:
        if self._built is not None:
            self._built[0].save()

    def close(self) -> None:
        if self._built is not None:
            self._built[1].close()
