"""Cost of one fair claim as the queue grows.

    .venv/bin/python bench/jobs_claim.py [--sizes 1000,10000,100000] [--claims 200]
        [--workspaces 20] [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/herald_bench]

A claim serves workspaces in turn: inside each workspace its jobs go by priority, and the
workspace served longest ago goes first. This measures what a claim costs when one workspace has
a huge backlog (a hostile or busy workspace: 95% of the due jobs) and the others (``--workspaces``
in all, 20 by default) share the rest, on a fresh database (a temporary SQLite file by default):
for each queue size, ``--claims`` claims of one job each, every claim in its own transaction and
the claimed job then finished (deleted) as a handler would, so the queue keeps its size. Printed
per size: claim latency p50 / p99 (ms) and how many workspaces the first 20 claims served.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KIND = "bench.claim"
LANE = "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--workspaces", type=int, default=20, help="workspaces with queued jobs")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from sqlalchemy import delete, insert

    from herald.config import Settings
    from herald.db.migrate import upgrade
    from herald.db.models.job import Job, JobTurn
    from herald.jobs import queue
    from herald.jobs.registry import job_handler, load_handlers
    from herald.runtime import Runtime

    load_handlers()  # a worker imports its handlers once, before its first claim
    job_handler(KIND, lane=LANE)(lambda ctx, jobs: None)
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="herald-claim-") as tmp:
        settings = Settings(home=Path(tmp), database_url=args.database_url, log_level="ERROR")
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        clock = runtime.clock
        print(f"database: {runtime.sessions.engine.dialect.name}")
        try:
            for size in sizes:
                with runtime.sessions.write() as session:
                    session.execute(delete(Job).where(Job.lane == LANE))
                    session.execute(delete(JobTurn).where(JobTurn.lane == LANE))
                now = clock.now()
                rows = []
                for i in range(size):
                    # 95% of the backlog is one workspace's; the others share the rest.
                    others = args.workspaces - 1
                    team = "ws-0" if i % 20 != 0 else f"ws-{1 + (i // 20) % others}"
                    rows.append(
                        {
                            "kind": KIND,
                            "lane": LANE,
                            "payload": {"i": i},
                            "team_id": team,
                            "status": "queued",
                            "priority": 10 if team == "ws-0" else 0,
                            "run_at": now,
                            "attempts": 0,
                            "max_attempts": 3,
                            "created_at": now,
                            "updated_at": now,
                        }
                    )
                with runtime.sessions.write() as session:
                    for start in range(0, size, 5000):
                        session.execute(insert(Job), rows[start : start + 5000])
                if runtime.sessions.engine.dialect.name == "postgresql":
                    # The steady state autovacuum keeps: the previous size's deleted rows gone.
                    with runtime.sessions.engine.connect() as conn:
                        conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                            "VACUUM ANALYZE jobs"
                        )
                latencies: list[float] = []
                served: list[str] = []
                for _ in range(args.claims):
                    started = time.perf_counter()
                    with runtime.sessions.write() as session:
                        batch = queue.claim(
                            session,
                            lane=LANE,
                            worker_id="bench",
                            clock=clock,
                            lease_seconds=60,
                        )
                    latencies.append((time.perf_counter() - started) * 1000)
                    assert len(batch) == 1
                    served.append(batch[0].team_id or "")
                    with runtime.sessions.write() as session:
                        session.execute(delete(Job).where(Job.id == batch[0].id))
                latencies.sort()
                p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
                distinct = len(set(served[:20]))
                print(
                    f"{size:>8,} due jobs: claim p50 {statistics.median(latencies):7.1f} ms"
                    f"  p99 {p99:7.1f} ms  (first 20 claims served {distinct} workspaces)"
                )
        finally:
            with runtime.sessions.write() as session:
                session.execute(delete(Job).where(Job.lane == LANE))
                session.execute(delete(JobTurn).where(JobTurn.lane == LANE))
            runtime.close()


if __name__ == "__main__":
    main()
