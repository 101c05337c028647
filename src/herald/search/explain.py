"""Why an item matched a query, in words: matched terms and phrases, requested entities linked,
the semantic similarity, and the largest contributions to the score.

The numbers come from the features the search computed for the item (``SearchHit.features``)
and the relevance model's weights; only the display of which words matched where is worked out
here, with the index's own analyzer, so "matched" means what the index means by it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from herald.search.analysis import index_terms, query_terms
from herald.search.features import FEATURE_NAMES
from herald.search.query_syntax import parse_query
from herald.search.rerank import RelevanceModel, default_model

# What each feature means, for a reader.
PLAIN: dict[str, str] = {
    "bm25_bound": "keyword relevance (BM25) to the whole query",
    "bm25_leader": "keyword score close to the best candidate's",
    "cosine": "semantic similarity to the query",
    "cosine_gap": "semantic similarity close to the best candidate's",
    "coverage": "share of the query's terms found in the item",
    "title_coverage": "share of the query's terms found in the title",
    "phrase": "query words found side by side",
    "rrf_lexical": "ranked high by the keyword search",
    "rrf_dense": "ranked high by the semantic search",
}
TOP_CONTRIBUTIONS = 3
_WORD = re.compile(r"[\w'-]+")


def _words_matched(words: Sequence[str], text: str | None) -> list[str]:
    if not text:
        return []
    present = set(index_terms(text))
    return [w for w in words if (stems := query_terms(w)) and all(s in present for s in stems)]


def _phrase_in(terms: tuple[str, ...], text: str | None) -> bool:
    if not text:
        return False
    seq = index_terms(text)
    n = len(terms)
    return any(tuple(seq[i : i + n]) == terms for i in range(len(seq) - n + 1))


def explain_match(
    query: str,
    *,
    title: str,
    summary: str | None,
    linked_entity_ids: Iterable[str],
    requested_entity_ids: Sequence[str],
    features: Sequence[float] | None,
    model: RelevanceModel | None = None,
) -> dict[str, Any]:
    """The ``match`` object of one item (``features`` None: no score evidence to show)."""
    parsed = parse_query(query)
    words = list(dict.fromkeys(w for w in _WORD.findall(parsed.text) if query_terms(w)))
    phrases = [p for group in parsed.required for p in group if len(p.terms) > 1]
    linked = set(linked_entity_ids)
    out: dict[str, Any] = {
        "terms": {
            "title": _words_matched(words, title),
            "summary": _words_matched(words, summary),
        },
        "phrases": [
            p.text for p in phrases if _phrase_in(p.terms, title) or _phrase_in(p.terms, summary)
        ],
        "entities": [e for e in requested_entity_ids if e in linked],
        "semantic_similarity": None,
        "contributions": [],
    }
    if features is None:
        return out
    model = model or default_model()
    values = dict(zip(FEATURE_NAMES, features, strict=True))
    out["semantic_similarity"] = round(values["cosine"], 4)
    parts = sorted(
        (
            (weight * value, name, value)
            for name, weight, value in zip(FEATURE_NAMES, model.weights, features, strict=True)
            if weight * value > 0
        ),
        reverse=True,
    )
    out["contributions"] = [
        {"feature": name, "value": round(value, 4), "weight": round(points, 4), "text": PLAIN[name]}
        for points, name, value in parts[:TOP_CONTRIBUTIONS]
    ]
    return out
