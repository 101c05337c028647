"""Query-document relevance features for the second stage, computed for all candidates at once.

Each feature is either absolute (comparable across queries: cosine similarity, the share of the
query's information content a document covers, BM25 relative to what the query could score at
most) or relative to the query's best candidate (how far a document is behind the leader). The
absolute ones make the final score mean the same thing for every query; the relative ones sharpen
the order within one query. Everything is vectorised: no Python loop runs per candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

BM25_K1 = 1.2  # Tantivy's BM25 constant: a term can contribute at most idf * (k1 + 1)
RRF_K = 60.0
MASK_BITS = 24  # query terms (and bigrams) tracked per candidate: a float32 holds 24 bits exactly

FEATURE_NAMES: tuple[str, ...] = (
    "bm25_bound",  # BM25 / (sum of idf * (k1 + 1) * field boosts): absolute, in [0, ~1]
    "bm25_leader",  # BM25 / best BM25 among the candidates
    "cosine",  # embedding cosine similarity
    "cosine_gap",  # cosine - best cosine among the candidates
    "coverage",  # idf-weighted share of query terms found anywhere in the item
    "title_coverage",  # idf-weighted share of query terms found in the title
    "phrase",  # share of adjacent query-term pairs found as phrases
    "rrf_lexical",  # 60 / (60 + lexical rank), 0 when not a lexical candidate
    "rrf_dense",  # 60 / (60 + dense rank), 0 when not a dense candidate
)


@dataclass(frozen=True, slots=True)
class LexicalEvidence:
    """What a lexical index knows about each candidate (arrays aligned with the candidate keys)."""

    bm25: Floats
    term_mask: Ints  # bit i: query term i occurs in the item
    title_mask: Ints  # bit i: query term i occurs in the title
    phrase_mask: Ints  # bit i: query bigram i occurs as a phrase
    idf: Floats  # per masked query term
    bigram_count: int
    bm25_bound: float  # sum of idf * (k1 + 1) * field boosts over the query terms


@dataclass(frozen=True, slots=True)
class Evidence:
    """Raw signals gathered for one query's candidates (arrays aligned with ``keys``)."""

    keys: Ints
    cosine: Floats
    lexical_rank: Floats  # 0-based; inf when not retrieved lexically
    dense_rank: Floats
    lexical: LexicalEvidence
    # The candidates the relative features are measured against (the best BM25 and cosine):
    # None: all of them. An exhaustive search scores items beyond the retrieval candidates
    # against the retrieval candidates' leaders, so every item scores as it would as a candidate.
    reference: npt.NDArray[np.bool_] | None = None


def mask_terms(terms: list[str], idf: Floats) -> list[str]:
    """At most ``MASK_BITS`` terms are tracked: the most informative, in query order."""
    if len(terms) <= MASK_BITS:
        return terms
    keep = set(np.argsort(-idf, kind="stable")[:MASK_BITS].tolist())
    return [t for i, t in enumerate(terms) if i in keep]


def _weighted_share(mask: Ints, weights: Floats) -> Floats:
    if len(weights) == 0 or weights.sum() <= 0:
        return np.zeros(len(mask), dtype=np.float64)
    bits = (mask[:, None] >> np.arange(len(weights))[None, :]) & 1
    share: Floats = (bits * weights[None, :]).sum(axis=1) / weights.sum()
    return share


def _popcount_share(mask: Ints, count: int) -> Floats:
    if count == 0:
        return np.zeros(len(mask), dtype=np.float64)
    bits = (mask[:, None] >> np.arange(count)[None, :]) & 1
    share: Floats = bits.sum(axis=1) / count
    return share


def feature_matrix(ev: Evidence) -> Floats:
    n = len(ev.keys)
    if n == 0:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float64)
    lex = ev.lexical
    ref = ev.reference if ev.reference is not None and ev.reference.any() else slice(None)
    best_bm25 = float(lex.bm25[ref].max())
    best_cos = float(ev.cosine[ref].max())
    columns = (
        lex.bm25 / lex.bm25_bound if lex.bm25_bound > 0 else np.zeros(n),
        lex.bm25 / best_bm25 if best_bm25 > 0 else np.zeros(n),
        ev.cosine,
        ev.cosine - best_cos,
        _weighted_share(lex.term_mask, lex.idf),
        _weighted_share(lex.title_mask, lex.idf),
        _popcount_share(lex.phrase_mask, lex.bigram_count),
        RRF_K / (RRF_K + ev.lexical_rank),
        RRF_K / (RRF_K + ev.dense_rank),
    )
    return np.column_stack(columns).astype(np.float64)
