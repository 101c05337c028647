"""The search benchmarks' stores: synthetic items written straight into Herald's tables (or
copied from the SQLite store into PostgreSQL) and each adapter's index built from them, both
kept per work directory (search_latency.py's docstring describes the steps).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import create_engine, insert, text

import search_synthetic as synthetic
from herald.db.migrate import upgrade
from herald.db.models.entity import Entity
from search_bench import HERALD, PG_ADMIN, database_url, env_for, load_average, pg_database


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
        conn.execute(insert(Entity), synthetic.entity_rows(now))
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
