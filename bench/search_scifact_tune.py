"""Fit the search relevance model and its threshold on the SciFact *train* split only.

    .venv/bin/python bench/search_scifact_tune.py [--data DATA/scifact-beir] [--write]

The collection is Herald's own copy (``search_scifact_data.herald_home``: loaded with
``herald ingest``, so items carry the summaries, key points and embeddings enrichment gives
them). For each candidate set of field boosts, every train query goes through Herald's retrieval
(``HybridRanker.rank`` over the embedded adapter: lexical + dense candidates, evidence,
features). A logistic regression on standardised features with an L2 penalty and non-negative
weights (every feature is evidence of relevance, so more evidence may never lower the score: the
model stays monotone, which keeps the score meaningful on data unlike SciFact) is scored by
5-fold cross-validation over train queries (nDCG@10 of the held-out folds); the best boosts and
penalty are refitted on all of them.

The threshold is the largest value (on a grid) at which the train nDCG@10 with results under the
threshold omitted stays within 0.5% of the nDCG@10 without a threshold: it drops as many
low-evidence results as possible at a small, bounded cost in ranking quality.

``--write`` replaces ``src/herald/search/rerank_params.py``. The test split is never read here.
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from sklearn.model_selection import GroupKFold

import search_scifact_data as scifact
from herald.config import Settings
from herald.runtime import Runtime
from herald.search.embedded import EmbeddedSearch
from herald.search.features import FEATURE_NAMES
from herald.search.filters import IndexFilter
from herald.search.lexical import FieldBoosts
from herald.search.lexical_view import TantivyScope
from herald.search.query_syntax import parse_query
from herald.search.service import get_search
from public_data import add_dataset_argument

PARAMS_FILE = Path(__file__).resolve().parents[1] / "src" / "herald" / "search" / "rerank_params.py"
TITLE_BOOSTS = (0.3, 0.5, 1.0)
SUMMARY_BOOSTS = (0.25, 0.5, 1.0)  # summary and key points (enrichment's, extracted from the body)
PENALTY_GRID = (1e-4, 1e-3, 1e-2)
THRESHOLD_GRID = tuple(float(x) for x in np.round(np.arange(0.0005, 0.2, 0.0005), 4))
MAX_NDCG_LOSS = 0.005


@dataclass
class QueryCandidates:
    features: np.ndarray
    labels: np.ndarray
    relevant: int


def collect(
    index: EmbeddedSearch, data: scifact.SciFact, boosts: FieldBoosts, doc_of: dict[str, str]
) -> list[QueryCandidates]:
    out = []
    by_key = {}
    for qid, relevant in sorted(data.train.items()):
        parsed = parse_query(data.queries[qid])
        scope = TantivyScope(index.lexical, boosts, parsed, IndexFilter())
        ranked = index.ranker.rank(scope, parsed)
        missing = [k for k in ranked.keys.tolist() if k not in by_key]
        if missing:
            by_key.update(scope.content_ids(np.array(missing, dtype=np.int64)))
        labels = np.array(
            [doc_of.get(by_key.get(k, ""), "") in relevant for k in ranked.keys.tolist()],
            dtype=bool,
        )
        out.append(QueryCandidates(ranked.features, labels, len(relevant)))
    return out


def ndcg(
    queries: list[QueryCandidates], scores: list[np.ndarray], threshold: float = -np.inf
) -> float:
    total = 0.0
    for q, s in zip(queries, scores, strict=True):
        order = np.argsort(-s, kind="stable")
        order = order[s[order] >= threshold][:10]
        dcg = sum(1.0 / np.log2(i + 2) for i, j in enumerate(order) if q.labels[j])
        ideal = sum(1.0 / np.log2(i + 2) for i in range(min(q.relevant, 10)))
        total += dcg / ideal
    return total / len(queries)


def fit(queries: list[QueryCandidates], penalty: float) -> tuple[np.ndarray, float]:
    """Monotone logistic regression; weights are returned in raw feature units."""
    x = np.vstack([q.features for q in queries])
    y = np.concatenate([q.labels for q in queries]).astype(np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / scale

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:-1], params[-1]
        margin = z @ w + b
        residual = 1.0 / (1.0 + np.exp(-margin)) - y
        value = np.mean(np.logaddexp(0.0, margin) - y * margin) + penalty * float(w @ w)
        grad = np.append(z.T @ residual / len(y) + 2 * penalty * w, residual.mean())
        return float(value), grad

    bounds = [(0.0, None)] * z.shape[1] + [(None, None)]
    result = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    weights = result.x[:-1] / scale
    bias = float(result.x[-1] - np.sum(result.x[:-1] * mean / scale))
    return weights, bias


def cross_validated(queries: list[QueryCandidates], penalty: float) -> float:
    idx = np.arange(len(queries))
    results = []
    for train_idx, held_idx in GroupKFold(n_splits=5).split(idx, groups=idx):
        w, b = fit([queries[i] for i in train_idx], penalty)
        held = [queries[i] for i in held_idx]
        results.append(ndcg(held, [q.features @ w + b for q in held]))
    return float(np.mean(results))


def choose_threshold(
    queries: list[QueryCandidates], w: np.ndarray, b: float
) -> tuple[float, float, float]:
    probs = [1.0 / (1.0 + np.exp(-(q.features @ w + b))) for q in queries]
    base = ndcg(queries, probs)
    best = 0.0
    for t in THRESHOLD_GRID:
        if ndcg(queries, probs, t) >= base * (1 - MAX_NDCG_LOSS):
            best = t
        else:
            break
    return best, base, ndcg(queries, probs, best)


def write_params(w: np.ndarray, b: float, threshold: float, boosts: FieldBoosts, note: str) -> None:
    lines = [
        '"""Generated by bench/search_scifact_tune.py from the SciFact train split: do not edit.',
        "",
        note,
        '"""',
        "",
        "FEATURES = (",
        *[f'    "{n}",' for n in FEATURE_NAMES],
        ")",
        "WEIGHTS = (",
        *[
            f"    {v!r},  # {n}"
            for v, n in zip(np.round(w, 6).tolist(), FEATURE_NAMES, strict=True)
        ],
        ")",
        f"BIAS = {round(b, 6)!r}",
        f"THRESHOLD = {threshold!r}",
        "FIELD_BOOSTS = {" + ", ".join(f'"{k}": {v!r}' for k, v in boosts.items()) + "}",
        "",
    ]
    PARAMS_FILE.write_text("\n".join(lines))


def content_to_doc(runtime: Runtime) -> dict[str, str]:
    """Herald content id -> SciFact document id (from the ingested URL)."""
    from sqlalchemy import select

    from herald.db.models.content import ContentItem

    with runtime.sessions.read() as session:
        rows = session.execute(select(ContentItem.id, ContentItem.url))
        return {cid: url.removeprefix(scifact.URL_PREFIX) for cid, url in rows if url}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dataset_argument(parser, "scifact-beir")
    parser.add_argument("--write", action="store_true", help="write rerank_params.py")
    args = parser.parse_args()
    started = time.monotonic()
    data = scifact.load(args.data)
    home = scifact.herald_home(data)
    runtime = Runtime(Settings(home=home, entity_seed="none", database_url=None))
    search = get_search(runtime)
    index = search.index
    assert isinstance(index, EmbeddedSearch)
    with runtime.sessions.read() as session:
        search.catch_up(session)
    doc_of = content_to_doc(runtime)
    best: tuple[float, FieldBoosts, float, list[QueryCandidates]] | None = None
    for title, summary in itertools.product(TITLE_BOOSTS, SUMMARY_BOOSTS):
        boosts = FieldBoosts(title=title, summary=summary, key_points=summary)
        queries = collect(index, data, boosts, doc_of)
        for penalty in PENALTY_GRID:
            score = cross_validated(queries, penalty)
            print(f"title={title} summary={summary} L2={penalty}: 5-fold train nDCG@10 {score:.4f}")
            if best is None or score > best[0]:
                best = (score, boosts, penalty, queries)
    runtime.close()
    assert best is not None
    cv_score, boosts, penalty, queries = best
    w, b = fit(queries, penalty)
    threshold, base, kept = choose_threshold(queries, w, b)
    print(f"\nchosen: {boosts}, L2={penalty} (cross-validated train nDCG@10 {cv_score:.4f})")
    print(f"train nDCG@10 {base:.4f}; threshold {threshold} keeps {kept:.4f}")
    for name, value in zip(FEATURE_NAMES, w.tolist(), strict=True):
        print(f"  {name:16s} {value:+.4f}")
    print(f"  {'bias':16s} {b:+.4f}")
    print(f"({time.monotonic() - started:.0f} s; machine shared with other work)")
    if args.write:
        note = (
            f"Boosts and L2 penalty {penalty} chosen by 5-fold cross-validation on train queries "
            f"(nDCG@10 {cv_score:.4f});\nthreshold: largest keeping train nDCG@10 within "
            f"{MAX_NDCG_LOSS:.1%} ({base:.4f} -> {kept:.4f})."
        )
        write_params(w, b, threshold, boosts, note)
        print(f"wrote {PARAMS_FILE}")


if __name__ == "__main__":
    main()
