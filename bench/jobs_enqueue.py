"""What queueing many jobs costs: one INSERT per job against ``queue.enqueue_many``.

    .venv/bin/python bench/jobs_enqueue.py [--jobs 1000] [--rounds 5] [--database-url URL]

Enrichment queues a clustering job per news item it stores, ingestion one per update that kept
its enrichment, ``herald enrich --rebuild`` an enrichment job per item (1,000 a transaction),
each with its unique key (a job equal to one still queued is dropped). This queues ``--jobs``
``clusters.assign`` jobs in one write transaction (commit included) both ways: ``enqueue`` once
per job, and ``enqueue_many`` once; the two alternate for ``--rounds`` rounds on a fresh database
(a temporary SQLite file by default; a PostgreSQL URL should name an empty database), the jobs
deleted between rounds. Printed per way: wall and CPU (this process) per job, min-max over the
rounds. The machine's other load shows in the wall figures; the CPU is the steadier one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KIND = "clusters.assign"


def per_row(session: Any, ids: list[str], clock: Any) -> None:
    from herald.jobs.queue import enqueue

    for content_id in ids:
        enqueue(
            session,
            KIND,
            {"content_id": content_id},
            clock=clock,
            unique_key=f"cluster:{content_id}",
        )


def many(session: Any, ids: list[str], clock: Any) -> None:
    from herald.jobs.queue import enqueue_many

    enqueue_many(session, KIND, [({"content_id": i}, f"cluster:{i}") for i in ids], clock=clock)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from sqlalchemy import delete, func, select

    from herald.config import Settings
    from herald.db.migrate import upgrade
    from herald.db.models.job import Job
    from herald.jobs.registry import load_handlers
    from herald.runtime import Runtime

    load_handlers()
    ways = {"enqueue per job": per_row, "enqueue_many": many}
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory(prefix="herald-enqueue-") as tmp:
        settings = Settings(home=Path(tmp), database_url=args.database_url, log_level="ERROR")
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        print(
            f"machine: {os.cpu_count()} cores shared with other sessions; load "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; database: "
            f"{runtime.sessions.engine.dialect.name}; {args.jobs:,} {KIND} jobs a transaction"
        )
        try:
            for round_ in range(args.rounds + 1):  # round 0 warms up, not counted
                for name, way in ways.items():
                    ids = [f"cnt_{round_}_{i}" for i in range(args.jobs)]
                    with runtime.sessions.write() as session:
                        session.execute(delete(Job))
                    wall, cpu = time.perf_counter(), time.process_time()
                    with runtime.sessions.write() as session:
                        way(session, ids, runtime.clock)
                    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                    with runtime.sessions.read() as session:
                        queued = session.scalar(select(func.count()).select_from(Job))
                    assert queued == args.jobs, (name, queued)
                    if round_:
                        figures[name].append((1000 * wall / args.jobs, 1000 * cpu / args.jobs))
        finally:
            with runtime.sessions.write() as session:
                session.execute(delete(Job))
            runtime.close()
    for name, runs in figures.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"  {name:<16}: wall {min(walls):.3f}-{max(walls):.3f} ms per job (median "
            f"{statistics.median(walls):.3f}); CPU {min(cpus):.3f}-{max(cpus):.3f} ms "
            f"(median {statistics.median(cpus):.3f})"
        )


if __name__ == "__main__":
    main()
