"""Ingestion throughput: a 10,000-item JSON Lines file, parsed and stored (no enrichment run).

    .venv/bin/python bench/ingest_jsonl.py [--items 10000] [--database-url URL] [--parallel-only]

The file is built from the bundled demo corpus' real news sentences: most items mix the sentences
of twelve short news reports (distinct stories, about 3,000 characters in all, the length of an
article), about one in five reprints an earlier item
with a small edit (so syndication lookups find and confirm candidates). Storing includes
everything ``herald ingest`` does before enrichment: validation, canonical URLs, stable ids,
syndication fingerprints and their lookups, the upsert, change marks and one ``enrich.item`` job
per item. Default database: a fresh SQLite file (WAL) in a temporary HERALD_HOME; a PostgreSQL
URL should name a fresh database.

Besides the wall time, each run prints the CPU time of every process doing the work (this one,
the parser processes, and the PostgreSQL backends when the server runs on this machine): on a
busy machine the wall time mostly measures the other load, the CPU time per item much less so.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from herald.config import Settings
from herald.core.clock import SystemClock
from herald.db.migrate import upgrade
from herald.ingest.demo import demo_corpus_bytes
from herald.ingest.pipeline import ingest_json_lines_parallel, ingest_outcomes
from herald.ingest.sources.jsonl import parse_json_lines
from herald.runtime import Runtime
from results import record


def build_file(path: Path, count: int, seed: int = 7) -> int:
    """Items whose texts mix the sentences of twelve real news reports (distinct stories), and
    about one in five a reprint of an earlier item with a different headline and a small edit (the
    syndication path: candidates found and confirmed)."""
    corpus = [json.loads(line) for line in demo_corpus_bytes().splitlines()]
    news = [
        item
        for item in corpus
        if item["media_type"] in ("news", "wire") and len(item["body"]) > 100
    ]
    pools = [re.split(r"(?<=[.!?])\s+", item["body"]) for item in news]
    rnd = random.Random(seed)
    bodies: list[str] = []
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            base = news[n % len(news)]
            if bodies and rnd.random() < 0.2:
                original = bodies[rnd.randrange(len(bodies))]
                body = "UPDATED - " + original.replace(" the ", " a ", 2)
            else:
                sentences = [s for pool in rnd.sample(pools, 12) for s in pool]
                rnd.shuffle(sentences)
                body = " ".join(sentences)
            bodies.append(body)
            item = {
                "url": f"https://bench{n % 97}.example.com/news/{n}/story?utm_source=feed",
                "media_type": base["media_type"],
                "title": f"{base['title']} ({n})",
                "published_date": "2026-11-20T10:00:00Z",
                "source": {
                    "name": f"Bench outlet {n % 97}",
                    "domain": f"bench{n % 97}.example.com",
                },
                "language": "en",
                "authors": ["Staff"],
                "body": body,
            }
            out.write(json.dumps(item) + "\n")
    return path.stat().st_size


@dataclass
class Run:
    """One ingestion of the file: wall time and where the CPU time went."""

    items: int
    wall: float
    cpu_main: float  # the process that parses (one process) or only stores (parallel)
    cpu_parsers: float  # the parser processes (parallel mode)
    cpu_server: float | None  # the PostgreSQL backends serving this run (local server only)

    @property
    def rate(self) -> float:
        return self.items / self.wall

    @property
    def cpu_ms_per_item(self) -> float | None:
        if self.cpu_server is None:
            return None
        return (self.cpu_main + self.cpu_parsers + self.cpu_server) / self.items * 1e3


def _backend_cpu(pids: set[int]) -> float | None:
    """CPU seconds of the PostgreSQL backends ``pids`` so far (Linux, server on this machine)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def run(data: Path, items_count: int, database_url: str | None, workers: int, home: Path) -> Run:
    """Ingest the file once; print and return the figures."""
    settings = Settings(home=home, database_url=database_url, log_format="text")
    upgrade(settings.resolved_database_url)
    runtime = Runtime(settings, clock=SystemClock())
    backends: set[int] = set()
    postgres = runtime.sessions.engine.dialect.name == "postgresql"

    @event.listens_for(runtime.sessions.engine, "checkout")
    def _note_backend(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if postgres and "bench_pid" not in record.info:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                record.info["bench_pid"] = cursor.fetchone()[0]
            backends.add(record.info["bench_pid"])

    try:
        with runtime.sessions.read() as session:
            session.execute(text("SELECT 1"))  # the pool's first connection, before the clock
        content = data.read_bytes()
        server_started = _backend_cpu(backends) if postgres else 0.0
        children_started = resource.getrusage(resource.RUSAGE_CHILDREN)
        started, cpu_started = time.perf_counter(), time.process_time()
        if workers > 1:
            report = ingest_json_lines_parallel(
                runtime.sessions, content, clock=runtime.clock, workers=workers
            )
        else:
            outcomes = parse_json_lines(content.splitlines())
            report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        server_now = _backend_cpu(backends) if postgres else 0.0
    finally:
        runtime.close()
    assert report.accepted == items_count, report.summary()
    parsers = (children.ru_utime + children.ru_stime) - (
        children_started.ru_utime + children_started.ru_stime
    )
    server = None
    if server_now is not None and server_started is not None:
        server = server_now - server_started
    result = Run(items_count, elapsed, cpu, parsers, server)
    mode = f"{workers} parser processes + 1 writer" if workers > 1 else "one process"
    print(
        f"  {mode:32s}: {elapsed:6.2f} s  {result.rate:6.0f} items/s  "
        f"(joined an existing article: {report.syndicated})"
    )
    where = f"main process {cpu:5.2f} s"
    if workers > 1:
        where += f", parser processes {parsers:5.2f} s"
    if postgres:
        where += ", PostgreSQL server " + (f"{server:5.2f} s" if server is not None else "unknown")
    if result.cpu_ms_per_item is not None:
        where += f"; {result.cpu_ms_per_item:.2f} ms per item in all"
    print(f"  {'':32s}  cpu: {where}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--parallel-only", action="store_true", help="skip the one-process mode (PostgreSQL)"
    )
    parser.add_argument(
        "--record", action="store_true", help="write the rates into bench/results.json"
    )
    args = parser.parse_args()
    backend = "postgresql" if args.database_url else "sqlite"
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "bench.jsonl"
        size = build_file(data, args.items)
        print(
            f"ingest_jsonl: {args.items} items, {size / 1e6:.1f} MB JSON Lines, parse + store "
            f"into {backend} (enrichment jobs queued, not run)"
        )
        print(
            f"machine: {os.cpu_count()} cores shared with other engineers' jobs; "
            f"load average {os.getloadavg()[0]:.1f} at start"
        )
        modes = [1] if args.workers <= 1 else [1, args.workers]
        if args.parallel_only and args.workers > 1:
            modes = [args.workers]
        for index, workers in enumerate(modes):
            home = Path(tmp) / f"home{index}"
            home.mkdir()
            url = args.database_url
            if url and index:
                print("  (PostgreSQL: the second mode reuses the database; run modes separately)")
                break
            result = run(data, args.items, url, workers, home)
            if args.record:
                mode = "one process" if workers == 1 else "2 parsers + 1 writer"
                name = "PostgreSQL" if url else "SQLite"
                point = {"items_per_s": round(result.rate)}
                record("ingestion", {"backend": name, "mode": mode}, point)
        print(f"load average {os.getloadavg()[0]:.1f} at end; target >= 1000 items/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
