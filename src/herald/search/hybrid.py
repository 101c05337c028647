"""Hybrid retrieval and the second-stage score, over any lexical scope and a vector index.

One search:
1. parse the query; the adapter builds a lexical scope holding the request filters and the
   syntax constraints (applied inside the index query);
2. embed the query (cached) while the lexical index finds its top candidates;
3. find dense candidates under the same constraints (see :meth:`HybridRanker._dense_candidates`);
4. gather evidence for the union (BM25, cosine, term, title and phrase matches) in a handful of
   index calls, turn it into features, score every candidate with the relevance model;
5. the caller drops candidates under the threshold, orders by score and keeps ``limit``.

An exhaustive search (a monitor's dated job, a search within a result store) scores, beside those
candidates, every other item passing the filters: lexical evidence for each item containing a
query term, and for the others the evidence is known to be empty (no BM25, term, title or phrase
match), so only their cosine is computed. The rank features and the leaders (best BM25, best
cosine) still come from the retrieval candidates, so each item gets exactly the score it gets
as a content-search candidate of the same window, and the ones above the threshold are every
match, however many.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from herald.search.documents import Vector
from herald.search.features import FEATURE_NAMES, Evidence, LexicalEvidence, feature_matrix
from herald.search.query_syntax import ParsedQuery
from herald.search.rerank import RelevanceModel
from herald.search.scope import Floats, Hits, Keys, LexicalScope
from herald.search.types import SearchHit
from herald.search.vectors import VectorIndex


class QueryEncoder(Protocol):
    def encode_query(self, query: str) -> Vector: ...

    def cached_query(self, query: str) -> Vector | None: ...


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    lexical_candidates: int = 100
    dense_candidates: int = 100
    # With constraints, a passing set this small is scored exactly (every vector in it) ...
    exact_dense_limit: int = 4000
    # ... otherwise the graph is over-fetched in proportion to the selectivity, up to:
    max_dense_fetch: int = 2000


@dataclass(frozen=True, slots=True)
class ScoredCandidates:
    """Every candidate of one query with its score (before the threshold), best first."""

    keys: Keys
    scores: Floats
    features: Floats

    @classmethod
    def empty(cls) -> ScoredCandidates:
        return cls(np.zeros(0, np.int64), np.zeros(0), np.zeros((0, len(FEATURE_NAMES))))


class HybridRanker:
    def __init__(
        self,
        vectors: VectorIndex,
        encoder: QueryEncoder,
        model: RelevanceModel,
        settings: RetrievalSettings | None = None,
    ) -> None:
        self.vectors = vectors
        self.encoder = encoder
        self.model = model
        self.settings = settings or RetrievalSettings()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="herald-search")

    def close(self) -> None:
        self._pool.shutdown(wait=False)

    def hits(
        self, scope: LexicalScope, parsed: ParsedQuery, limit: int, *, exhaustive: bool = False
    ) -> list[SearchHit]:
        """The results of one search: over the threshold, best first, at most ``limit``."""
        ranked = self.rank(scope, parsed, exhaustive=exhaustive)
        keep = ranked.scores >= self.model.threshold
        keys = ranked.keys[keep][:limit]
        scores = ranked.scores[keep][:limit]
        features = ranked.features[keep][:limit].tolist()
        ids = scope.content_ids(keys)
        return [
            SearchHit(content_id=ids[k], score=round(float(s), 6), features=tuple(f))
            for k, s, f in zip(keys.tolist(), scores.tolist(), features, strict=True)
            if k in ids
        ]

    def rank(
        self, scope: LexicalScope, parsed: ParsedQuery, *, exhaustive: bool = False
    ) -> ScoredCandidates:
        if parsed.is_empty or scope.num_docs == 0:
            return ScoredCandidates.empty()
        terms = list(parsed.terms)
        # The dense side (embedding the query unless it is cached, then the nearest neighbours
        # under the filters) runs beside the lexical top-k: usearch, ONNX Runtime and Tantivy
        # release the GIL, so on two cores a search waits for the slower side, not the sum.
        cached = self.encoder.cached_query(parsed.text)

        def dense_side() -> tuple[Vector, Keys]:
            vector = cached if cached is not None else self.encoder.encode_query(parsed.text)
            return vector, self._dense_candidates(scope, vector)

        pending: Future[tuple[Vector, Keys]] = self._pool.submit(dense_side)
        lexical = scope.top(terms, self.settings.lexical_candidates)
        query_vector, dense_keys = pending.result()
        keys = np.unique(np.concatenate([lexical.keys, dense_keys]))
        if exhaustive:
            return self._rank_every(scope, terms, query_vector, lexical, dense_keys, keys)
        if len(keys) == 0:
            return ScoredCandidates.empty()
        cosine, _ = self.vectors.key_similarities(keys, query_vector)
        evidence = Evidence(
            keys=keys,
            cosine=cosine,
            lexical_rank=_ranks(keys, lexical.keys),
            dense_rank=_ranks(keys, dense_keys),
            lexical=scope.evidence(terms, keys, lexical),
        )
        return self._scored(evidence)

    def _rank_every(
        self,
        scope: LexicalScope,
        terms: list[str],
        query_vector: Vector,
        lexical: Hits,
        dense_keys: Keys,
        candidates: Keys,
    ) -> ScoredCandidates:
        """Every item passing the filters, scored as it would be as a retrieval candidate."""
        matches = scope.matches(terms)
        textual = np.unique(np.concatenate([candidates, matches.keys]))
        passing, passing_cosine = self._every_passing(scope, query_vector)
        keys = np.unique(np.concatenate([textual, passing]))
        if len(keys) == 0:
            return ScoredCandidates.empty()
        cosine = np.zeros(len(keys), dtype=np.float64)
        cosine[np.searchsorted(keys, passing)] = passing_cosine
        rest = ~np.isin(keys, passing)  # a match without a vector yet: 0, as for a candidate
        if rest.any():
            cosine[rest] = self.vectors.key_similarities(keys[rest], query_vector)[0]
        # ``matches`` holds the lexical candidates with the same lexical scores (same query).
        known = matches if len(matches.keys) else lexical
        evidence = Evidence(
            keys=keys,
            cosine=cosine,
            lexical_rank=_ranks(keys, lexical.keys),
            dense_rank=_ranks(keys, dense_keys),
            lexical=_spread(scope.evidence(terms, textual, known, every_match=True), textual, keys),
            reference=np.isin(keys, candidates),
        )
        return self._scored(evidence)

    def _every_passing(self, scope: LexicalScope, query: Vector) -> tuple[Keys, Floats]:
        """The keys of every item passing the filters that has a vector, with its cosine: the
        vector index answers a date window and media types by itself (rows, no key lookups);
        any other constraint is checked by the lexical index."""
        vectors = self.vectors
        flt = scope.filter
        if scope.simple and flt.start is not None and flt.end is not None:
            rows = np.flatnonzero(vectors.filter_mask(None, flt.start, flt.end, flt.media_types))
            return vectors.keys_of(rows), vectors.similarities(rows, query)
        total, _ = scope.count(scope.num_docs)
        keys = np.unique(scope.passing(total))
        cosine, found = vectors.key_similarities(keys, query)
        return keys[found], cosine[found]

    def _scored(self, evidence: Evidence) -> ScoredCandidates:
        keys = evidence.keys
        features = feature_matrix(evidence)
        scores = self.model.score(features)
        order = np.lexsort((keys, -scores))  # ties broken by key: stable across calls
        return ScoredCandidates(keys[order], scores[order], features[order])

    def _dense_candidates(self, scope: LexicalScope, query: Vector) -> Keys:
        """Nearest neighbours that pass the filters and the query's syntax constraints.

        How many items pass decides the strategy: few (at most ``exact_dense_limit``) are all
        scored exactly; otherwise the graph is searched more widely, in proportion to the
        selectivity, and the neighbours are filtered. The date window and media types (on every
        search) are checked by the vector index itself, in numpy; any other constraint (domains,
        entities, phrases, exclusions, a result store) is checked inside the lexical index, so
        each filter is defined in one place and no Python loop runs over the collection.
        """
        vectors = self.vectors
        want = self.settings.dense_candidates
        if len(vectors) == 0:
            return np.zeros(0, dtype=np.int64)
        if not scope.constrained:
            return vectors.search(query, want)[0]
        flt = scope.filter
        start, end, media = flt.start, flt.end, flt.media_types
        if scope.simple and start is not None and end is not None:
            total = vectors.window_count(start, end, media)
            if total <= self.settings.exact_dense_limit:
                rows = np.flatnonzero(vectors.filter_mask(None, start, end, media))
                sims = vectors.similarities(rows, query)
                return vectors.keys_of(rows[np.argsort(-sims)[:want]])
            rows = vectors.neighbours(query, self._fetch_size(total, len(vectors)))
            rows = rows[vectors.filter_mask(rows, start, end, media)]
            return vectors.keys_of(rows[:want])
        total, exact = scope.count(self.settings.exact_dense_limit)
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        if exact and total <= self.settings.exact_dense_limit:
            passing = scope.passing(total)
            sims, found = vectors.key_similarities(passing, query)
            passing, sims = passing[found], sims[found]
            return passing[np.argsort(-sims)[:want]]
        fetch = self._fetch_size(total, len(vectors)) if exact else self.settings.max_dense_fetch
        rows = vectors.neighbours(query, fetch)
        if start is not None and end is not None:  # a cheap first cut before the lexical index
            rows = rows[vectors.filter_mask(rows, start, end, media)]
        neighbours = vectors.keys_of(rows)
        allowed = scope.restrict(neighbours)
        return neighbours[np.isin(neighbours, allowed)][:want]

    def _fetch_size(self, passing: int, size: int) -> int:
        want = self.settings.dense_candidates
        selectivity = max(passing, 1) / max(size, 1)
        return int(min(self.settings.max_dense_fetch, max(want, want / selectivity * 1.5)))


def _spread(evidence: LexicalEvidence, subset: Keys, keys: Keys) -> LexicalEvidence:
    """``evidence`` for ``subset`` placed at their positions in ``keys`` (both sorted); the
    other keys contain no query term: no BM25 and no term, title or phrase match."""
    pos = np.searchsorted(keys, subset)

    def place(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out = np.zeros(len(keys), dtype=values.dtype)
        out[pos] = values
        return out

    return replace(
        evidence,
        bm25=place(evidence.bm25),
        term_mask=place(evidence.term_mask),
        title_mask=place(evidence.title_mask),
        phrase_mask=place(evidence.phrase_mask),
    )


def _ranks(keys: Keys, ranked: Keys) -> Floats:
    out = np.full(len(keys), np.inf)
    if len(ranked) == 0:
        return out
    pos = np.searchsorted(keys, ranked)  # keys are sorted (np.unique)
    out[pos] = np.arange(len(ranked), dtype=np.float64)
    return out
