"""Bytes per content item: each table with its indexes, in SQLite or PostgreSQL, and the local
search index (Tantivy, vector snapshot) beside it.

    .venv/bin/python bench/storage_per_item.py --database-url URL [--home HERALD_HOME]

Reads a database that Herald (or a benchmark) filled; writes nothing. Per item means divided by
the number of rows in ``content_items``. SQLite sizes come from the ``dbstat`` table (pages in
use, indexes counted with their table); PostgreSQL sizes from ``pg_relation_size`` (the heap),
``pg_indexes_size`` and the rest of ``pg_total_relation_size`` (TOAST: long texts and vectors),
after ``VACUUM`` has run or not, as the database is. The search benchmark's stores
(``search_latency.py --work DIR``) hold items, entity links and embeddings as enrichment leaves
them, no syndication fingerprints; ``ingest_jsonl.py``'s database holds ingested items with
their fingerprints and jobs, not enriched.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from sqlalchemy import create_engine, text


def sqlite_sizes(url: str) -> dict[str, tuple[int, int, int]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        owner = dict(conn.execute(text("SELECT name, tbl_name FROM sqlite_master")).all())
        sizes: dict[str, list[int]] = {}
        for name, size in conn.execute(text("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")):
            table = owner.get(name, name)
            if table.startswith("sqlite_"):
                continue
            entry = sizes.setdefault(table, [0, 0, 0])
            entry[0 if name == table else 1] += int(size)
    engine.dispose()
    return {t: (v[0], v[1], v[2]) for t, v in sizes.items()}


def postgres_sizes(url: str) -> dict[str, tuple[int, int, int]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT c.relname, pg_relation_size(c.oid), pg_indexes_size(c.oid), "
                "pg_total_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind = 'r'"
            )
        ).all()
    engine.dispose()
    return {name: (heap, idx, total - heap - idx) for name, heap, idx, total in rows}


def directory_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--home", type=Path, help="HERALD_HOME whose index/ to measure")
    args = parser.parse_args()
    url = args.database_url
    engine = create_engine(url)
    with engine.connect() as conn:
        items = int(conn.execute(text("SELECT count(*) FROM content_items")).scalar_one())
    engine.dispose()
    sizes = sqlite_sizes(url) if url.startswith("sqlite") else postgres_sizes(url)
    print(f"storage per item: {items:,} items in {url.split('@')[-1]}")
    print(f"machine: {os.cpu_count()} cores; sizes do not depend on load")
    print(f"{'table':34s} {'data B/item':>12s} {'indexes':>9s} {'toast':>8s} {'total':>9s}")
    grand = 0
    for table, (data, indexes, toast) in sorted(sizes.items(), key=lambda kv: -sum(kv[1])):
        total = data + indexes + toast
        grand += total
        if total / max(items, 1) >= 1:
            per = [v / max(items, 1) for v in (data, indexes, toast, total)]
            print(f"{table:34s} {per[0]:12,.0f} {per[1]:9,.0f} {per[2]:8,.0f} {per[3]:9,.0f}")
    print(f"{'database, all tables':34s} {'':>12s} {'':>9s} {'':>8s} {grand / max(items, 1):9,.0f}")
    if args.home is not None:
        for name in ("lexical", "vectors"):
            size = directory_bytes(args.home / "index" / name)
            print(
                f"{'index/' + name + ' (local disk)':34s} {'':>12s} {'':>9s} {'':>8s} "
                f"{size / max(items, 1):9,.0f}"
            )


if __name__ == "__main__":
    main()
