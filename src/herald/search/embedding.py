"""Query embeddings: the runtime's one embedder (shared with enrichment), behind an LRU cache.

A query embedding costs more than the rest of a search at a million items on a small machine
(10-40 ms of one core for all-MiniLM-L6-v2), and the same queries come back (monitors run theirs
every hour, users refine and repeat), so query vectors are cached by their normalised text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from herald.search.documents import Vector

MAX_QUERY_CHARS = 1000  # the model reads at most 128 word pieces; a pasted article is cut


class Embedder(Protocol):
    """What ``herald.enrich.embedding.Embedder`` provides (the same vectors as documents)."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


class CachedQueryEncoder:
    def __init__(self, embedder: Embedder, *, cache_size: int = 4096) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def normalise(query: str) -> str:
        return " ".join(query[:MAX_QUERY_CHARS].split())

    def encode_query(self, query: str) -> Vector:
        key = self.normalise(query)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self.hits += 1
                return cached
        vector = np.ascontiguousarray(self.embedder.embed([key or " "])[0], dtype=np.float32)
        vector.setflags(write=False)
        with self._lock:
            self.misses += 1
            self._cache[key] = vector
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector
