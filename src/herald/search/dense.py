"""This process's dense side (vector index, its sync, the hybrid ranker), built on first search.

A process that never searches (a short `herald ingest`, a worker indexing changes) never loads
the vector snapshot: at a million items that is a gigabyte and seconds of start-up. The shared
lexical projection is all such a process needs to keep current.
"""

from __future__ import annotations

import threading
from pathlib import Path

from herald.search.embedding import CachedQueryEncoder
from herald.search.hybrid import HybridRanker, RetrievalSettings
from herald.search.projection import ProjectionSync, VectorProjection
from herald.search.rerank import RelevanceModel
from herald.search.vectors import VectorIndex


class DenseSide:
    def __init__(
        self,
        index_dir: Path | None,
        *,
        encoder: CachedQueryEncoder,
        model: RelevanceModel,
        margin: int,
        settings: RetrievalSettings | None = None,
    ) -> None:
        self._path = None if index_dir is None else index_dir / "vectors"
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
                    ranker = HybridRanker(vectors, self._encoder, self._model, self._settings)
                    sync = ProjectionSync(
                        VectorProjection(vectors),
                        margin=self._margin,
                        embedding_model=embedder.model_name,
                    )
                    self._built = (vectors, ranker, sync)
        return self._built

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
