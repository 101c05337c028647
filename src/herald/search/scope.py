"""The lexical side of one search, as the hybrid retrieval needs it from any index adapter.

A scope is bound to one query's filters and syntax constraints and to one consistent view of
the index (a Tantivy searcher, or a PostgreSQL transaction). Both adapters implement it; the
hybrid retrieval, the features and the relevance model above it are shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from herald.search.features import LexicalEvidence
from herald.search.filters import IndexFilter

Keys = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Hits:
    keys: Keys
    scores: Floats
    total: int  # all documents that matched when counted; otherwise the hits returned


def no_hits() -> Hits:
    return Hits(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64), 0)


class LexicalScope(Protocol):
    num_docs: int
    # The request's filters; ``simple`` when only the date window and media types constrain the
    # search (no other filter, no phrase or exclusion): the vector index can check those itself.
    filter: IndexFilter
    simple: bool

    def top(self, terms: Sequence[str], limit: int) -> Hits:
        """The best ``limit`` lexical matches passing the constraints."""
        ...

    def matches(self, terms: Sequence[str]) -> Hits:
        """Every item passing the constraints that contains at least one of ``terms``, in no
        particular order (scores: the adapter's own lexical score, or zeros)."""
        ...

    def count(self, cap: int) -> tuple[int, bool]:
        """How many items pass the constraints (text aside), and whether that is exact: an
        adapter may stop counting above ``cap`` (then the number is only known to exceed it)."""
        ...

    def passing(self, limit: int) -> Keys:
        """Up to ``limit`` items passing the constraints, in no particular order."""
        ...

    def restrict(self, keys: Keys) -> Keys:
        """The subset of ``keys`` that exist and pass the constraints."""
        ...

    def evidence(
        self, terms: Sequence[str], keys: Keys, known: Hits, *, every_match: bool = False
    ) -> LexicalEvidence:
        """Lexical evidence for each of ``keys`` (BM25, term, title and phrase matches);
        ``known`` are this scope's own ``top`` or ``matches`` hits (an adapter may reuse their
        scores); ``every_match``: ``keys`` include every item of :meth:`matches`."""
        ...

    def content_ids(self, keys: Keys) -> dict[int, str]: ...

    @property
    def constrained(self) -> bool:
        """Whether any filter or syntax constraint applies."""
        ...
