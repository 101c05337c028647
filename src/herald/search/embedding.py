"""Query embeddings: the runtime's one embedder (shared with enrichment), behind an LRU cache.

A query embedding costs more than the rest of a search at a million items on a small machine
(10-40 ms of one core for all-MiniLM-L6-v2), and the same queries come back (monitors run theirs
every hour, users refine and repeat), so query vectors are cached by their normalised text.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from herald.search.documents import Vector

MAX_QUERY_CHARS = 1000  # the model reads at most 128 word pieces; a pasted article is cut


@runtime_checkable
class Embedder(Protocol):
    """What ``herald.enrich.embedding.Embedder`` provides (the same vectors as documents)."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch on the calling thread alone, for one short forward pass.

    A query is a dozen word pieces: splitting its forward pass over OpenMP threads saves little,
    and on a busy machine the helper threads spin-wait for partners that are not scheduled. Both
    were measured here (2 shared cores, load 14): 26 ms of CPU per query embedding on one thread,
    330 ms (and 8x the wall time) on two. The setting is per thread in torch (OpenMP's thread
    count and MKL's local setting), so enrichment's batches elsewhere in the process keep every
    core; the process-wide default is put back at once for threads started later.
    """
    torch = sys.modules.get("torch")
    if torch is None:  # no torch model loaded (a hashing embedder): nothing to do
        yield
        return
    previous = int(torch.get_num_threads())
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


class CachedQueryEncoder:
    """``embedder``: the model, or a function that loads it. Loading waits for the first use, so
    a search that needs no embedding (nothing indexed yet) never pays seconds for the model."""

    def __init__(
        self, embedder: Embedder | Callable[[], Embedder], *, cache_size: int = 4096
    ) -> None:
        self._embedder: Embedder | None = None
        self._load: Callable[[], Embedder] | None = None
        if isinstance(embedder, Embedder):
            self._embedder = embedder
        else:
            self._load = embedder
        self._load_lock = threading.Lock()
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._load_lock:
                if self._embedder is None:
                    assert self._load is not None
                    self._embedder = self._load()
        return self._embedder

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    @staticmethod
    def normalise(query: str) -> str:
        return " ".join(query[:MAX_QUERY_CHARS].split())

    def cached_query(self, query: str) -> Vector | None:
        """The cached vector of ``query``, or None (then :meth:`encode_query` computes it)."""
        key = self.normalise(query)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self.hits += 1
            return cached

    def encode_query(self, query: str) -> Vector:
        cached = self.cached_query(query)
        if cached is not None:
            return cached
        key = self.normalise(query)
        embedder = self.embedder
        with one_thread():
            vector = np.ascontiguousarray(embedder.embed([key or " "])[0], dtype=np.float32)
        vector.setflags(write=False)
        with self._lock:
            self.misses += 1
            self._cache[key] = vector
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector
