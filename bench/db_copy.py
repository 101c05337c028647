"""`herald db copy` from SQLite to PostgreSQL: rows per second with INSERT and with COPY.

    .venv/bin/python bench/db_copy.py [--items 3000] [--rounds 3] [--pg-admin URL]

The source is a SQLite home filled as `herald ingest` fills it (the ingestion benchmark's file
of real news sentences: items, syndication fingerprints with their 42 band keys each, one queued
enrichment job per item), plus a 384-dimension float32 embedding per item (binary values with
zero bytes). Each round copies that one source into two fresh PostgreSQL databases, once writing
with INSERT (``use_copy=False``, the path before COPY) and once with COPY, in alternating order.
Printed per copy: the wall time of the whole command's work (migrating the target included),
the rows phase alone (first table started to the end: rows, counts, sequences), rows per second
over that phase, and the CPU time of this process and of the PostgreSQL backends (Linux, server
on this machine).
"""

from __future__ import annotations

import argparse
import os
import random
import struct
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import event, insert, select, text
from sqlalchemy.pool import Pool

from footprint import machine
from herald.config import Settings
from herald.core.clock import SystemClock
from herald.db.copy import copy_database
from herald.db.migrate import upgrade
from herald.db.models.content import ContentEmbedding, ContentItem
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources.jsonl import parse_json_lines
from herald.runtime import Runtime
from ingest_jsonl import build_file

DIM = 384


def fill_source(home: Path, items: int) -> tuple[str, int]:
    """A SQLite home with ``items`` ingested items and an embedding each; its URL and row count."""
    data = home / "items.jsonl"
    build_file(data, items)
    settings = Settings(home=home, log_format="text")
    url = settings.resolved_database_url
    upgrade(url)
    runtime = Runtime(settings, clock=SystemClock())
    try:
        outcomes = parse_json_lines(data.read_bytes().splitlines())
        report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)
        assert report.accepted == items, report.summary()
        rnd = random.Random(3)
        with runtime.sessions.write() as session:
            ids = session.scalars(select(ContentItem.id)).all()
            now = runtime.clock.now()
            session.execute(
                insert(ContentEmbedding),
                [
                    {
                        "content_id": content_id,
                        "model": "bench",
                        "dim": DIM,
                        "vector": struct.pack(f"{DIM}f", *(rnd.gauss(0, 1) for _ in range(DIM))),
                        "updated_at": now,
                    }
                    for content_id in ids
                ],
            )
        with runtime.sessions.read() as session:
            tables = session.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'table'")
            ).scalars()
            rows = sum(
                int(session.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one())
                for name in list(tables)
            )
    finally:
        runtime.close()
    return url, rows


def process_cpu(pid: int) -> float | None:
    """CPU seconds of process ``pid`` so far (Linux), None once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Backends:
    """The CPU time of every PostgreSQL backend this process opens, read again as each closes
    (the copy disposes of its engines before it returns)."""

    def __init__(self) -> None:
        self.final: dict[int, float] = {}
        self.live: set[int] = set()

    def connected(self, dbapi_connection: Any, record: Any) -> None:
        if "psycopg" in type(dbapi_connection).__module__:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                record.info["bench_pid"] = cursor.fetchone()[0]
            self.live.add(record.info["bench_pid"])

    def closing(self, _dbapi_connection: Any, record: Any) -> None:
        pid = record.info.get("bench_pid")
        if pid is not None:
            self.final[pid] = process_cpu(pid) or 0.0
            self.live.discard(pid)

    def cpu(self) -> float:
        return sum(self.final.values()) + sum(process_cpu(pid) or 0.0 for pid in self.live)


def copy_once(source: str, admin: str, *, use_copy: bool) -> dict[str, float]:
    name = f"herald_bench_copy_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    target = admin.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + "/" + name
    backends = Backends()
    at_rows: list[tuple[float, float]] = []  # (wall, CPU of both) when the first table starts

    def on_table(_table: str, _total: int) -> None:
        if not at_rows:
            at_rows.append((time.perf_counter(), time.process_time() + backends.cpu()))

    event.listen(Pool, "connect", backends.connected)
    event.listen(Pool, "close", backends.closing)
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        copy_database(source, target, on_table=on_table, use_copy=use_copy)
        ended, cpu = time.perf_counter(), time.process_time()
    finally:
        event.remove(Pool, "connect", backends.connected)
        event.remove(Pool, "close", backends.closing)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return {
        "total": ended - started,
        "rows_phase": ended - at_rows[0][0],
        "cpu": cpu - cpu_started,
        "server": backends.cpu(),
        "cpu_rows": cpu + backends.cpu() - at_rows[0][1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--pg-admin",
        default=os.environ.get(
            "HERALD_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
        help="a PostgreSQL URL allowed to create databases",
    )
    args = parser.parse_args()
    print(f"db_copy: machine {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        source, rows = fill_source(Path(tmp), args.items)
        print(
            f"source: {args.items} items, {rows} rows in all (SQLite, filled in "
            f"{time.perf_counter() - started:.0f} s)"
        )
        figures: dict[str, list[dict[str, float]]] = {"INSERT": [], "COPY": []}
        for round_ in range(args.rounds):
            order = [False, True] if round_ % 2 == 0 else [True, False]
            for use_copy in order:
                label = "COPY" if use_copy else "INSERT"
                got = copy_once(source, args.pg_admin, use_copy=use_copy)
                figures[label].append(got)
                print(
                    f"  round {round_ + 1} {label:6s}: total {got['total']:6.2f} s, rows phase "
                    f"{got['rows_phase']:6.2f} s = {rows / got['rows_phase']:8.0f} rows/s; CPU "
                    f"this process {got['cpu']:5.2f} s, PostgreSQL {got['server']:5.2f} s "
                    f"(rows phase, both: {got['cpu_rows']:5.2f} s)"
                )
        for label, runs in figures.items():
            rates = sorted(rows / run["rows_phase"] for run in runs)
            print(
                f"{label:6s}: rows/s over the rows phase {', '.join(f'{r:.0f}' for r in rates)} "
                f"(median {rates[len(rates) // 2]:.0f})"
            )
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
