"""Relevance of Herald's search on SciFact (BEIR), test split: nDCG@10 and recall@100.

    .venv/bin/python bench/search_scifact_eval.py [--data DATA/scifact-beir] [--split test|train]

The collection goes through Herald's own path (``search_scifact_data.herald_home``: the BEIR
corpus written as Herald's JSON Lines, loaded by ``herald ingest``: ingestion, enrichment,
indexing). Rows:

- Tantivy BM25 alone (English stemming, stop words dropped from queries, all fields weight 1);
- MiniLM dense alone (the stored item embeddings, the usearch graph);
- plain reciprocal-rank fusion of the two (k=60), for orientation;
- Herald's hybrid + rerank: exactly what POST /v1/content/search returns (the request built by
  the API's own rules with an explicit window around the items' date and limit 100, searched by
  the runtime's search service), ordered by the rerank ``score``, results under the threshold
  omitted. The relevance model and threshold were fitted on the train split by
  ``search_scifact_tune.py``; this script reads the test split only for scoring.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import search_scifact_data as scifact
from herald.config import Settings
from herald.runtime import Runtime
from herald.search.embedded import EmbeddedSearch
from herald.search.filters import IndexFilter
from herald.search.lexical import FieldBoosts
from herald.search.lexical_view import TantivyScope
from herald.search.query_syntax import parse_query
from herald.search.request import build_content_search
from herald.search.service import get_search
from public_data import add_dataset_argument
from search_scifact_tune import content_to_doc

BEIR = {"BM25 (BEIR paper)": 0.665, "BM25 + cross-encoder (BEIR paper)": 0.688}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dataset_argument(parser, "scifact-beir")
    parser.add_argument("--split", choices=("test", "train"), default="test")
    parser.add_argument(
        "--postgresql",
        action="store_true",
        help="also evaluate the PostgreSQL adapter (on a copy of the same items)",
    )
    args = parser.parse_args()
    data = scifact.load(args.data)
    qrels = data.test if args.split == "test" else data.train
    home = scifact.herald_home(data)
    runtime = Runtime(Settings(home=home, entity_seed="none", database_url=None))
    search = get_search(runtime)
    index = search.index
    assert isinstance(index, EmbeddedSearch)
    with runtime.sessions.read() as session:
        search.catch_up(session)
    doc_of = content_to_doc(runtime)
    encoder = index.ranker.encoder

    rows: dict[str, tuple[list[float], list[float]]] = {}

    def record(name: str, ranked: list[str], relevant: set[str]) -> None:
        nd, rc = rows.setdefault(name, ([], []))
        nd.append(scifact.ndcg_at_10(ranked, relevant))
        rc.append(scifact.recall_at_100(ranked, relevant))

    timings: list[float] = []
    returned: list[int] = []
    for qid, relevant in qrels.items():
        query = data.queries[qid]
        parsed = parse_query(query)
        scope = TantivyScope(index.lexical, FieldBoosts(), parsed, IndexFilter())
        lexical = scope.top(list(parsed.terms), 100).keys
        dense = index.vectors.search(encoder.encode_query(parsed.text), 100)[0]
        names = scope.content_ids(np.unique(np.concatenate([lexical, dense])))

        def docs(keys: np.ndarray, names: dict[int, str] = names) -> list[str]:
            return [doc_of.get(names.get(k, ""), "") for k in keys.tolist()]

        record("Tantivy BM25 alone (Herald lexical)", docs(lexical), relevant)
        record("MiniLM-L6 dense alone (Herald vectors)", docs(dense), relevant)
        fused: dict[int, float] = {}
        for ranking in (lexical.tolist(), dense.tolist()):
            for rank, key in enumerate(ranking):
                fused[key] = fused.get(key, 0.0) + 1.0 / (60 + rank)
        rrf = np.array(sorted(fused, key=lambda k: -fused[k]), dtype=np.int64)
        record("RRF of the two (orientation)", docs(rrf), relevant)
        request = build_content_search(
            query=query,
            start_date=scifact.WINDOW[0],
            end_date=scifact.WINDOW[1],
            limit=100,
            clock=runtime.clock,
        )
        started = time.perf_counter()
        with runtime.sessions.read() as session:
            hits = search.search(session, request)
        timings.append((time.perf_counter() - started) * 1000)
        returned.append(len(hits))
        record(
            "Herald hybrid + rerank (API results)", [doc_of[h.content_id] for h in hits], relevant
        )
        # The same score without the threshold: how well it orders every candidate.
        flt = IndexFilter.from_request(request)
        scoped = TantivyScope(index.lexical, index.model.boosts, parsed, flt)
        ranked = index.ranker.rank(scoped, parsed).keys
        names.update(scoped.content_ids(ranked[~np.isin(ranked, list(names))]))
        record("  same score, no threshold (all candidates)", docs(ranked), relevant)
    runtime.close()

    print(
        f"SciFact {args.split}: {len(qrels)} queries, {len(data.docs)} documents, via herald ingest"
    )
    print(f"{'system':44s} {'nDCG@10':>8s} {'R@100':>7s}")
    for name, value in BEIR.items():
        print(f"{name:44s} {value:8.3f} {'':>7s}")
    for name, (nd, rc) in rows.items():
        print(f"{name:44s} {np.mean(nd):8.4f} {np.mean(rc):7.4f}")
    model = index.model
    print(
        f"\nthreshold {model.threshold}: {np.mean(returned):.1f} results per query on average "
        f"(limit 100); {sum(r == 0 for r in returned)} queries with none"
    )
    print(
        f"search per query, embedding cached: p50 {np.percentile(timings, 50):.1f} ms, "
        f"p95 {np.percentile(timings, 95):.1f} ms (machine shared with other work)"
    )
    if args.postgresql:
        evaluate_postgres(data, qrels, home)


def evaluate_postgres(data: scifact.SciFact, qrels: dict[str, set[str]], home: Path) -> None:
    url = scifact.postgres_copy(home)
    pg_home = home.parent / "scifact-postgres-home"
    runtime = Runtime(Settings(home=pg_home, entity_seed="none", database_url=url))
    search = get_search(runtime)
    with runtime.sessions.read() as session:
        search.catch_up(session)
    doc_of = content_to_doc(runtime)
    nd, rc, counts = [], [], []
    for qid, relevant in qrels.items():
        request = build_content_search(
            query=data.queries[qid],
            start_date=scifact.WINDOW[0],
            end_date=scifact.WINDOW[1],
            limit=100,
            clock=runtime.clock,
        )
        with runtime.sessions.read() as session:
            hits = search.search(session, request)
        ranked = [doc_of[h.content_id] for h in hits]
        nd.append(scifact.ndcg_at_10(ranked, relevant))
        rc.append(scifact.recall_at_100(ranked, relevant))
        counts.append(len(hits))
    runtime.close()
    print(
        f"PostgreSQL adapter, hybrid + rerank (API results): nDCG@10 {np.mean(nd):.4f}, "
        f"R@100 {np.mean(rc):.4f}, {np.mean(counts):.1f} results per query"
    )


if __name__ == "__main__":
    main()
