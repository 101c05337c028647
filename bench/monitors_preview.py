"""Benchmark: ``POST /v1/monitors/preview`` for a week on a 200,000-item store, real search.

    .venv/bin/python bench/monitors_preview.py --data DATA [--queries 40] [--days 7] [--work DIR]

The store is the monitors benchmark's base state (``bench/monitors_hourly.py``: 200,000
synthetic items from ``search_synthetic``'s batch writer over the 60 days before 2026-11-25
12:00Z, indexed by the production rebuild), built by that script or reused from its cache. A
fresh copy is opened with the API's search service (embedded adapter on SQLite), warmed as a
running server is, and the preview endpoint is called through the HTTP app (FastAPI TestClient,
in-process) for monitor queries drawn from that benchmark's pool. Each preview runs ``--days``
dated-job searches (limit 1000, the threshold) and loads the top items. Printed: latency
percentiles (wall and CPU time: the CPU time does not grow with other
processes' load), the mean captured per preview, and the load average (the machine is shared).

DATA: the folder holding the ``scifact-beir``, ``ecbplus`` and ``wcep-wikitimes-2015-09`` datasets
(docs/benchmarks.md, "Datasets"): the query pool and, when the base state is built, its items.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient

import monitors_hourly as hourly
import search_scifact_data as scifact
import search_synthetic as synthetic
from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.migrate import upgrade
from herald.runtime import Runtime
from herald.workspaces.service import create_key
from public_data import add_data_argument


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_argument(parser, *synthetic.DATASETS)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--work", default=str(scifact.cache_dir() / "monitors-hourly"))
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(
        f"monitors_preview: {args.queries} previews of {args.days} days, {args.items:,} items; "
        f"{os.cpu_count()} cores SHARED, load average {hourly.load_average()} at start",
        flush=True,
    )
    ns = argparse.Namespace(items=args.items, days=60, work=args.work, database_url=None)
    base = Path(args.work) / f"base-{args.items}-60d"
    corpus = None if (base / "built.ok").exists() else hourly.Corpus(args.data)
    home, url = hourly.prepare_home(ns, corpus)  # type: ignore[arg-type]
    try:
        upgrade(url)
        clock = FrozenClock(hourly.NOW + timedelta(hours=1))
        runtime = Runtime(Settings(home=home, database_url=url, log_format="text"), clock=clock)
        started = time.monotonic()
        hourly.warm_search(runtime)
        print(f"  search service open  {time.monotonic() - started:7.1f} s")
        with runtime.sessions.write() as session:
            key = create_key(session, workspace="bench", role="member", clock=clock).api_key
        queries = hourly.query_pool(args.data)[: args.queries]
        times: list[float] = []
        cpu: list[float] = []
        captured: list[int] = []
        with TestClient(create_app(runtime)) as client:
            client.post(  # first call: query-encoder session, route warm-up (not measured)
                "/v1/monitors/preview",
                json={"search": {"query": "warm up"}, "days": 1},
                headers={"x-api-key": key},
            )
            for query in queries:
                started = time.perf_counter()
                cpu_started = time.process_time()
                response = client.post(
                    "/v1/monitors/preview",
                    json={"search": {"query": query}, "days": args.days},
                    headers={"x-api-key": key},
                )
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - cpu_started)
                assert response.status_code == 200, response.text
                captured.append(response.json()["total"])
        runtime.close()
        times.sort()
        ms = [t * 1000 for t in times]
        print(
            f"  latency ms: p50 {statistics.median(ms):.0f}  "
            f"p95 {ms[int(len(ms) * 0.95) - 1]:.0f}  max {ms[-1]:.0f}  "
            f"mean {statistics.mean(ms):.0f}"
        )
        cpu_ms = sorted(c * 1000 for c in cpu)
        print(
            f"  CPU ms (this process, all threads): p50 {statistics.median(cpu_ms):.0f}  "
            f"p95 {cpu_ms[int(len(cpu_ms) * 0.95) - 1]:.0f}  max {cpu_ms[-1]:.0f}"
        )
        print(f"  captured per preview: mean {statistics.mean(captured):.0f} over {args.days} days")
        print(f"  load average at end {hourly.load_average()}")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
