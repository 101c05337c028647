"""End-to-end latency of POST /v1/content/search over HTTP at a million items, both adapters.

    .venv/bin/python bench/search_latency.py --data DATA [--items 1000000]
        [--backend both|embedded|postgresql] [--queries 400] [--work DIR] [--fresh] [--build-only]
        [--postgresql-by-copy] [--record] [--servers 1,2 --clients 1,4,16]

DATA: the folder holding the ``scifact-beir``, ``ecbplus`` and ``wcep-wikitimes-2015-09`` datasets
(docs/benchmarks.md, "Datasets").

1. Data: ``--items`` synthetic items (see ``search_synthetic.py`` for how they are made) are
   written straight into Herald's tables (items, entities and links, embeddings, change
   sequence), as ingestion and enrichment would leave them: SQLite under ``WORK/embedded`` and a
   PostgreSQL database named after the work directory (``herald_bench_search_<hash>``).
   With ``--postgresql-by-copy`` the PostgreSQL database is instead filled by ``herald db copy``
   from the SQLite store (built first if missing): the same rows, copied at tens of thousands of
   rows a second instead of written a second time, which matters at a million items.
2. Indexing: ``herald index rebuild`` builds each adapter's index from the database through the
   production catch-up path; the rate (wall and CPU) and the index size on disk are reported.
   Data and index are built once per work directory and kept (``WORK/<backend>/loaded.ok``,
   ``index.json``): running again with the same ``--work`` only measures queries, reporting the
   recorded build figures. ``--fresh`` starts over.
3. Serving: ``herald serve --no-worker`` on loopback; one client sends ``--queries`` searches one
   after another (latency, not throughput) with keep-alive, each with a 60-day window or
   narrower and a mix of filters (below). Every query runs twice: the first pass embeds each
   query (cold), the second finds it in the query-embedding cache (warm), as repeated user
   queries and monitors do. p50/p95/p99 of the client-side wall time are printed, and the
   server's CPU time per search (from /proc), which does not depend on what else the machine
   runs; on PostgreSQL also the CPU time of the database's server processes per search, and
   the server's resident memory after the passes.

``--record`` writes the p50/p95/p99 of each backend and pass into bench/results.json with the
code version measured (bench/results.py), for the plot of docs/benchmarks.md.

The search adapter is the default (``HERALD_SEARCH_BACKEND=auto``: the embedded index, also on
PostgreSQL) unless ``HERALD_SEARCH_BACKEND`` is set in the environment; the report names it.

Queries: SciFact claims and ECB+/WCEP headline fragments. Filters: 60% the default window (last
60 days), 25% a random 60-day window in the year, 15% a 1-7 day window; 30% one or two media
types; 10% include 1-3 domains; 10% exclude 1-3 domains; 10% one entity id; limit 10 (20% 50).
The machine has 2 cores shared with other engineers' jobs: the load average is printed before
and after each pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np

import search_scifact_data as scifact
import search_synthetic as synthetic
from public_data import add_data_argument
from search_bench import (
    HERALD,
    cpu_seconds,
    create_key,
    database_cpu_seconds,
    env_for,
    free_port,
    load_average,
    machine,
    resident_mib,
    wait_until_serving,
)
from search_store import load_data, rebuild_index


def make_queries(count: int, data: Path, seed: int = 7) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    texts = list(scifact.load(data / "scifact-beir").queries.values())
    for p in synthetic.passages(data)[5183:]:
        words = p.sentences[0].split()
        texts.append(" ".join(words[: int(rng.integers(3, 9))]))
    rng.shuffle(texts)
    domains = synthetic.domain_names()[:500]
    entities = synthetic.entity_ids()[:2000]
    today = synthetic.TODAY.date()
    out = []
    for query in texts[:count]:
        body: dict[str, Any] = {"query": query[:300]}
        kind = rng.random()
        if kind >= 0.6:
            span = 60 if kind < 0.85 else int(rng.integers(1, 8))
            end = today - timedelta(days=int(rng.integers(0, 365 - span)))
            body["start_date"] = (end - timedelta(days=span)).isoformat()
            body["end_date"] = end.isoformat()
        if rng.random() < 0.3:
            body["media_types"] = sorted(
                {str(m) for m in rng.choice(["news", "wire", "podcast"], int(rng.integers(1, 3)))}
            )
        roll = rng.random()
        if roll < 0.1:
            body["include_domains"] = [str(d) for d in rng.choice(domains, int(rng.integers(1, 4)))]
        elif roll < 0.2:
            body["exclude_domains"] = [str(d) for d in rng.choice(domains, int(rng.integers(1, 4)))]
        if rng.random() < 0.1:
            body["entity_ids"] = [str(rng.choice(entities))]
        body["limit"] = 50 if rng.random() < 0.2 else 10
        out.append(body)
    return out


def query_classes(body: dict[str, Any]) -> list[str]:
    """The window and filter classes of one query (for the per-class breakdown)."""
    if "start_date" not in body:
        window = "window: default 60 days"
    else:
        days = (
            datetime.fromisoformat(body["end_date"]) - datetime.fromisoformat(body["start_date"])
        ).days
        window = "window: other 60 days" if days >= 60 else "window: 1-7 days"
    filters = [f"filter: {name}" for name in FILTERS if name in body] or ["filter: none"]
    return [window, *filters]


FILTERS = ("media_types", "include_domains", "exclude_domains", "entity_ids")


def breakdown(queries: list[dict[str, Any]], times: list[float]) -> dict[str, str]:
    groups: dict[str, list[float]] = {}
    for body, elapsed in zip(queries, times, strict=True):
        for name in query_classes(body):
            groups.setdefault(name, []).append(elapsed)
    return {
        name: f"n={len(values)} p50 {np.percentile(values, 50):.1f} ms, "
        f"p95 {np.percentile(values, 95):.1f} ms"
        for name, values in sorted(groups.items())
    }


def measure(backend: str, work: Path, queries: list[dict[str, Any]]) -> dict[str, Any]:
    env = env_for(backend, work)
    key = create_key(env)
    port = free_port()
    server = subprocess.Popen(
        [HERALD, "serve", "--no-worker", "--host", "127.0.0.1", "--port", str(port)], env=env
    )
    results: dict[str, Any] = {}
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, headers={"x-api-key": key}, timeout=120) as client:
            wait_until_serving(client, server)
            # Opening the index and loading the model happen once, before the first search.
            warm = client.post("/v1/content/search", json={"query": "warm up the index"})
            warm.raise_for_status()
            time.sleep(20)  # let the start-up warm-ups (models) finish off the request path
            for label in ("cold", "warm"):
                times = []
                counts = []
                load_before = load_average()
                cpu_before = cpu_seconds(server.pid)
                database_before = database_cpu_seconds(backend, work)
                for body in queries:
                    started = time.perf_counter()
                    response = client.post("/v1/content/search", json=body)
                    times.append((time.perf_counter() - started) * 1000)
                    response.raise_for_status()
                    counts.append(len(response.json()["results"]))
                server_cpu = cpu_seconds(server.pid) - cpu_before
                database_cpu = database_cpu_seconds(backend, work) - database_before
                results[label] = {
                    "p50_ms": round(float(np.percentile(times, 50)), 1),
                    "p95_ms": round(float(np.percentile(times, 95)), 1),
                    "p99_ms": round(float(np.percentile(times, 99)), 1),
                    "mean_ms": round(float(np.mean(times)), 1),
                    # CPU the server spent per search: what the searches cost, whatever the load.
                    "server_cpu_ms_per_query": round(1000 * server_cpu / len(queries), 1),
                    "database_cpu_ms_per_query": round(1000 * database_cpu / len(queries), 1),
                    "mean_results": round(float(np.mean(counts)), 2),
                    "load_before": load_before,
                    "load_after": load_average(),
                    "by_class": breakdown(queries, times),
                }
                print(f"  {backend} {label}: {results[label]}", file=sys.stderr)
            results["server_rss_mib"] = round(resident_mib(server.pid))
    finally:
        server.terminate()
        server.wait(timeout=120)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_argument(parser, *synthetic.DATASETS)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--backend", choices=("both", "embedded", "postgresql"), default="both")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--work", type=Path, default=scifact.cache_dir() / "latency")
    parser.add_argument("--fresh", action="store_true", help="regenerate the data and index")
    parser.add_argument("--build-only", action="store_true", help="build data and indexes only")
    parser.add_argument(
        "--postgresql-by-copy",
        action="store_true",
        help="fill the PostgreSQL store by `herald db copy` of the SQLite one (same rows, faster)",
    )
    parser.add_argument(
        "--servers",
        default=None,
        help="with --clients: API process counts to measure throughput with (1,2)",
    )
    parser.add_argument(
        "--clients",
        default=None,
        help="concurrent clients per level (1,4,16): searches per second instead of latency "
        "(search_concurrency.py)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="write the latencies into bench/results.json with the code version",
    )
    args = parser.parse_args()
    if args.record and args.clients:
        parser.error("--record records the latency passes, not --clients throughput")
    backends = ("embedded", "postgresql") if args.backend == "both" else (args.backend,)
    queries = make_queries(args.queries, args.data)
    report: dict[str, Any] = {
        "items": args.items,
        "queries": len(queries),
        "machine": machine(),
        "search_adapter": os.environ.get("HERALD_SEARCH_BACKEND", "auto"),
        "load_at_start": load_average(),
    }
    for backend in backends:
        started = time.monotonic()
        load_data(backend, args.work, args.items, args.fresh, args.data, args.postgresql_by_copy)
        print(f"{backend}: data ready ({time.monotonic() - started:.0f} s)", file=sys.stderr)
        built = rebuild_index(backend, args.work, args.items)
        report[f"{backend}_index"] = built
        print(
            f"{backend}: {'reusing the index built' if built.get('reused') else 'indexed'} "
            f"{built['items']:,} items in {built['seconds']:.0f} s "
            f"({built['items_per_second']:,.0f} items/s, {built['cpu_seconds']:.0f} s CPU), "
            f"index on disk {built['bytes'] / 2**30:.2f} GiB; load then {built['load']}",
            file=sys.stderr,
        )
        if args.clients and not args.build_only:
            import search_concurrency

            clients = [int(n) for n in args.clients.split(",")]
            report[backend] = {}
            for servers in [int(n) for n in (args.servers or "1").split(",")]:
                report[backend] |= search_concurrency.measure(
                    backend, args.work, queries, servers, clients
                )
        elif not args.build_only:
            report[backend] = measure(backend, args.work, queries)
    print(json.dumps(report, indent=2))
    if args.record and not args.build_only:
        record_latencies(report, backends)


PASSES = {"cold": "first-time", "warm": "repeated"}


def record_latencies(report: dict[str, Any], backends: tuple[str, ...]) -> None:
    """Write each backend's and pass's percentiles into bench/results.json (with the load)."""
    from results import record

    for backend in backends:
        for label, query in PASSES.items():
            figures = report[backend][label]
            record(
                "search_latency",
                {"items": report["items"], "backend": backend, "query": query},
                {
                    "p50": figures["p50_ms"],
                    "p95": figures["p95_ms"],
                    "p99": figures["p99_ms"],
                    "load": f"{figures['load_before']} / {figures['load_after']}",
                },
            )


if __name__ == "__main__":
    main()
