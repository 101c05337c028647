"""Cost of taking deleted articles' words out of the clustering statistics, as the table grows.

    .venv/bin/python bench/clusters_term_delete.py [--rows 3000000] [--keys 5000] [--repeats 5]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/herald_bench]

A deletion batch (retention deletes 500 items at a time) decrements the document counts of the
keys its last copies of articles carried (``cluster_term_stats``) and deletes the keys left at
zero. On a fresh database (a temporary SQLite file by default) holding ``--rows`` keys, this
times one batch of ``--keys`` decremented keys (most lose their only document), two ways:

- ``whole-table``: one update per key, then a delete of every count at zero over the whole table;
- ``keyed-delete``: the same updates, then the delete by primary key of the keys just
  decremented only (:func:`herald.clusters.repository.delete_emptied_statistics`);
- ``keys-only``: :func:`herald.clusters.repository.subtract_statistics` (one update per bag,
  amount and chunk of keys, then that delete).

Each run is rolled back, so every repeat sees the same table. Printed: the median seconds of the
updates, of the delete, and in all, for each way, with the load average.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BAGS = ("terms", "names", "numbers", "entities")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--keys", type=int, default=5000, help="keys one batch decrements")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from sqlalchemy import delete, insert, update
    from sqlalchemy.orm import Session

    from herald.clusters.repository import delete_emptied_statistics, subtract_statistics
    from herald.config import Settings
    from herald.db.migrate import upgrade
    from herald.db.models.clusters import ClusterTermStat
    from herald.runtime import Runtime

    rng = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="herald-terms-") as tmp:
        settings = Settings(home=Path(tmp), database_url=args.database_url, log_level="ERROR")
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        print(f"database: {runtime.sessions.engine.dialect.name}, rows: {args.rows:,}")
        try:
            with runtime.sessions.write() as session:
                session.execute(delete(ClusterTermStat))
            chunk = 50_000
            for start in range(0, args.rows, chunk):
                rows = [
                    {
                        "bag": BAGS[i % len(BAGS)],
                        "key": f"key{i}",
                        "documents": 1 if i % 3 else 1 + i % 7,
                        "changed_seq": 1,
                    }
                    for i in range(start, min(start + chunk, args.rows))
                ]
                with runtime.sessions.write() as session:
                    session.execute(insert(ClusterTermStat), rows)
            with runtime.sessions.write() as session:  # planner statistics, as autovacuum would
                session.connection().exec_driver_sql("ANALYZE")
            picked = rng.sample(range(args.rows), args.keys)
            decrements = {(BAGS[i % len(BAGS)], f"key{i}"): 1 for i in picked}

            def per_key_updates(session: Session) -> float:
                """The updates as they were: one statement per key; their seconds."""
                started = time.perf_counter()
                for (bag, key), count in decrements.items():
                    session.execute(
                        update(ClusterTermStat)
                        .where(ClusterTermStat.bag == bag, ClusterTermStat.key == key)
                        .values(documents=ClusterTermStat.documents - count, changed_seq=2)
                    )
                return time.perf_counter() - started

            def whole_table(session: Session) -> tuple[float, float]:
                updates = per_key_updates(session)
                started = time.perf_counter()
                session.execute(delete(ClusterTermStat).where(ClusterTermStat.documents <= 0))
                return updates, time.perf_counter() - started

            def keyed_delete(session: Session) -> tuple[float, float]:
                updates = per_key_updates(session)
                started = time.perf_counter()
                delete_emptied_statistics(session, decrements)
                return updates, time.perf_counter() - started

            def keys_only(session: Session) -> tuple[float, float]:
                started = time.perf_counter()
                subtract_statistics(session, decrements, sequence=2)
                return 0.0, time.perf_counter() - started

            ways = (
                ("whole-table", whole_table),
                ("keyed-delete", keyed_delete),
                ("keys-only", keys_only),
            )
            for name, way in ways:
                times = []
                for _ in range(args.repeats):
                    with runtime.sessions.write() as session:
                        attempt = session.begin_nested()
                        times.append(way(session))
                        attempt.rollback()
                updates = statistics.median(t[0] for t in times)
                deletes = statistics.median(t[1] for t in times)
                total = statistics.median(t[0] + t[1] for t in times)
                label = "updates + delete" if name == "keys-only" else "delete"  # one timing
                print(
                    f"{name:12} updates {updates:.4f} s  {label} {deletes:.4f} s  "
                    f"total {total:.4f} s  (median of {args.repeats}, {args.keys} keys)"
                )
            print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
        finally:
            runtime.close()


if __name__ == "__main__":
    main()
