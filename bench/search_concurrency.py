"""Searches per second with several clients and API processes: ``search_latency.py --clients``.

An operator scales the API out by running more ``herald serve --no-worker`` processes behind a
load balancer, each with its own vector index and query-embedding cache, all reading the same
database. This starts ``servers`` such processes on loopback and, for each count of concurrent
clients, has that many client threads send the queries (client ``i`` talks to process
``i mod servers``, as a balancer spreading connections would), each query once per level. Before
the levels, every process has seen every query once, so the figures are of repeated queries
(the query's embedding cached, as for monitors and refined queries): what the search itself,
the key check and the database cost. Printed per level: searches per second, p50/p95 of the
client-side latency, the CPU per search of the API processes, of PostgreSQL and of the clients
(this process), the connections the API processes opened to PostgreSQL during the level, and
the load average.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psycopg

import search_bench as shared


def start_servers(backend: str, work: Path, count: int) -> tuple[list[Any], list[str], str]:
    env = shared.env_for(backend, work)
    key = shared.create_key(env)
    servers, bases = [], []
    for _ in range(count):
        port = shared.free_port()
        command = ["serve", "--no-worker", "--host", "127.0.0.1", "--port", str(port)]
        servers.append(subprocess.Popen([shared.HERALD, *command], env=env))
        bases.append(f"http://127.0.0.1:{port}")
    for server, base in zip(servers, bases, strict=True):
        with httpx.Client(base_url=base, timeout=120) as client:
            shared.wait_until_serving(client, server)
    return servers, bases, key


def _send(base: str, key: str, queries: list[dict[str, Any]], times: list[float]) -> None:
    with httpx.Client(base_url=base, headers={"x-api-key": key}, timeout=120) as client:
        for body in queries:
            started = time.perf_counter()
            response = client.post("/v1/content/search", json=body)
            times.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()


def _run_clients(
    bases: list[str], key: str, queries: list[dict[str, Any]], clients: int
) -> tuple[float, list[float]]:
    """``clients`` threads share the queries; returns the wall seconds and every latency."""
    times: list[float] = []
    shares = [queries[i::clients] for i in range(clients)]
    threads = [
        threading.Thread(target=_send, args=(bases[i % len(bases)], key, shares[i], times))
        for i in range(clients)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, times


def sessions_opened(backend: str, work: Path) -> int:
    """Connections opened to the store's PostgreSQL database so far (0 for SQLite): how often
    the API processes' pools opened a new one."""
    if backend != "postgresql":
        return 0
    name = shared.pg_database(work)
    with psycopg.connect(shared.PG_ADMIN, autocommit=True) as conn:
        row = conn.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (name,)
        ).fetchone()
    return int(row[0]) if row else 0


def measure(
    backend: str, work: Path, queries: list[dict[str, Any]], servers: int, clients: list[int]
) -> dict[str, Any]:
    processes, bases, key = start_servers(backend, work, servers)
    results: dict[str, Any] = {}
    try:
        # Every process embeds and caches every query once, its index opened and its models
        # loaded; the start-up warm-ups then finish off the request path.
        warm = [threading.Thread(target=_send, args=(base, key, queries, [])) for base in bases]
        for thread in warm:
            thread.start()
        for thread in warm:
            thread.join()
        time.sleep(10)
        for count in clients:
            load_before = shared.load_average()
            cpu_before = sum(shared.cpu_seconds(p.pid) for p in processes)
            database_before = shared.database_cpu_seconds(backend, work)
            sessions_before = sessions_opened(backend, work)
            client_before = time.process_time()
            wall, times = _run_clients(bases, key, queries, count)
            client_cpu = time.process_time() - client_before
            server_cpu = sum(shared.cpu_seconds(p.pid) for p in processes) - cpu_before
            database_cpu = shared.database_cpu_seconds(backend, work) - database_before
            opened = sessions_opened(backend, work) - sessions_before
            figures = {
                "searches_per_second": round(len(times) / wall, 1),
                "p50_ms": round(float(np.percentile(times, 50)), 1),
                "p95_ms": round(float(np.percentile(times, 95)), 1),
                "server_cpu_ms_per_query": round(1000 * server_cpu / len(times), 1),
                # of the connections open throughout: those a pool opened during the level
                # (and closed again) are missing
                "database_cpu_ms_per_query": round(1000 * database_cpu / len(times), 1),
                "client_cpu_ms_per_query": round(1000 * client_cpu / len(times), 1),
                "connections_opened": opened,
                "load": f"{load_before} -> {shared.load_average()}",
            }
            results[f"{servers} servers, {count} clients"] = figures
            print(f"  {backend} {servers} servers, {count} clients: {figures}", file=sys.stderr)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=120)
    return results
