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
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psycopg
from sqlalchemy import create_engine, insert, text

import search_scifact_data as scifact
import search_synthetic as synthetic
from herald.db.migrate import upgrade
from herald.db.models.entity import Entity
from public_data import add_data_argument

PG_ADMIN = os.environ.get("HERALD_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")
HERALD = str(Path(sys.executable).with_name("herald"))


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def pg_database(work: Path) -> str:
    """One PostgreSQL database per work directory, so runs of other sizes leave it alone."""
    digest = hashlib.sha256(str(work.resolve()).encode()).hexdigest()[:8]
    return f"herald_bench_search_{digest}"


def database_url(backend: str, work: Path) -> str:
    if backend == "embedded":
        return f"sqlite:///{work / 'embedded' / 'herald.db'}"
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{pg_database(work)}"


def env_for(backend: str, work: Path) -> dict[str, str]:
    home = work / backend
    return {
        **os.environ,
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": database_url(backend, work),
        "HERALD_ENTITY_SEED": "none",
        "HERALD_LOG_LEVEL": "WARNING",
        # 800 searches a minute from one key: the benchmark measures search, not the limit
        "HERALD_RATE_LIMIT_PER_MINUTE": "0",
        "HF_HUB_OFFLINE": "1",
    }


def load_data(
    backend: str, work: Path, count: int, fresh: bool, data: Path, by_copy: bool = False
) -> None:
    home = work / backend
    done = home / "loaded.ok"
    if done.exists() and not fresh:
        loaded = int(done.read_text().split()[0])
        if loaded != count:
            raise SystemExit(f"{home} holds {loaded:,} items: pass --items {loaded} or --fresh")
        return
    if backend == "postgresql" and by_copy:
        copy_embedded_store(work, count, fresh, data)
        return
    (home / "index.json").unlink(missing_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    url = database_url(backend, work)
    if backend == "postgresql":
        name = pg_database(work)
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    else:
        for name in ("herald.db", "herald.db-wal", "herald.db-shm"):
            (home / name).unlink(missing_ok=True)
    for stale in ("index",):
        subprocess.run(["rm", "-rf", str(home / stale)], check=True)
    upgrade(url)
    engine = create_engine(url)
    from herald.enrich.embedder import build_embedder

    embedder = build_embedder(None)
    passages = synthetic.passages(data)
    vectors = synthetic.passage_vectors(passages, embedder, data)
    started = time.monotonic()
    now = synthetic.TODAY
    with engine.begin() as conn:
        if backend == "embedded":
            conn.execute(text("PRAGMA synchronous=OFF"))
        conn.execute(
            insert(Entity),
            [
                {
                    "id": eid,
                    "display_name": f"Entity {i}",
                    "entity_kind": "company",
                    "description": "",
                    "aliases": [],
                    "tags": [],
                    "origin": "import",
                    "created_at": now,
                    "updated_at": now,
                }
                for i, eid in enumerate(synthetic.entity_ids())
            ],
        )
    written = 0
    for batch in synthetic.generate(count, passages, vectors):
        with engine.begin() as conn:
            synthetic.write_batch(conn, batch, embedder.model_name, embedded_at=now)
        written += len(batch.rows)
        if written % 100_000 == 0:
            rate = written / (time.monotonic() - started)
            print(f"  {backend}: {written:,} items written ({rate:,.0f}/s)", file=sys.stderr)
    if backend == "postgresql":
        with engine.begin() as conn:
            conn.execute(text(f"SELECT setval('content_change_seq', {count})"))
            conn.execute(text("ANALYZE"))
    engine.dispose()
    seconds = time.monotonic() - started
    done.write_text(f"{count} items written in {seconds:.0f} s\n")


def copy_embedded_store(work: Path, count: int, fresh: bool, data: Path) -> None:
    """Fill the PostgreSQL store with the SQLite store's rows through ``herald db copy``
    (the SQLite store is built first if missing); the index is built afterwards, as usual."""
    load_data("embedded", work, count, fresh, data)
    home = work / "postgresql"
    (home / "index.json").unlink(missing_ok=True)
    subprocess.run(["rm", "-rf", str(home / "index")], check=True)
    home.mkdir(parents=True, exist_ok=True)
    name = pg_database(work)
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = database_url("postgresql", work)
    started = time.monotonic()
    subprocess.run(
        [HERALD, "db", "copy", "--from", database_url("embedded", work), "--to", url, "--no-index"],
        env=env_for("postgresql", work),
        check=True,
    )
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("ANALYZE")
    seconds = time.monotonic() - started
    (home / "loaded.ok").write_text(
        f"{count} items copied from the embedded store in {seconds:.0f} s\n"
    )


def rebuild_index(backend: str, work: Path, count: int) -> dict[str, Any]:
    """Build the index with `herald index rebuild` once; later runs reuse it (and its figures)."""
    home = work / backend
    record = home / "index.json"
    if record.exists():
        built: dict[str, Any] = json.loads(record.read_text())
        built["reused"] = True
        return built
    started = time.monotonic()
    cpu = os.times()
    subprocess.run([HERALD, "index", "rebuild"], env=env_for(backend, work), check=True)
    seconds = time.monotonic() - started
    after = os.times()
    cpu_seconds = after.children_user + after.children_system
    cpu_seconds -= cpu.children_user + cpu.children_system
    size = sum(f.stat().st_size for f in (home / "index").rglob("*") if f.is_file())
    if backend == "postgresql":
        with psycopg.connect(database_url(backend, work).replace("+psycopg", "")) as conn:
            row = conn.execute(
                "SELECT pg_total_relation_size('content_search_documents')"
            ).fetchone()
            assert row is not None
            size += int(row[0])
    built = {
        "items": count,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "items_per_second": count / seconds,
        "bytes": size,
        "load": load_average(),
    }
    record.write_text(json.dumps(built))
    return built


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu_seconds(backend: str, work: Path) -> float:
    """CPU time so far of the PostgreSQL server processes connected to the bench database
    (0 for SQLite, which runs inside the server process)."""
    if backend != "postgresql":
        return 0.0
    name = pg_database(work).encode()
    total = 0.0
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and name in (proc / "cmdline").read_bytes():
                total += cpu_seconds(int(proc.name))
        except OSError:  # exited meanwhile
            continue
    return total


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "unknown CPU",
    )
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({model}), {memory:.0f} GiB, shared with other engineers' jobs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def create_key(env: dict[str, str]) -> str:
    """A new API key of the store that ``env`` names."""
    created = subprocess.run(
        [HERALD, "keys", "create", "--workspace", "bench", "--json"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return str(json.loads(created.stdout)["api_key"])


def wait_until_serving(client: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    """Until the server answers its health check (at most 10 minutes: a large index opens)."""
    deadline = time.monotonic() + 600
    while True:
        try:
            if client.get("/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise RuntimeError("the server did not start")
        time.sleep(0.5)


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
