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

``--processes 1,2,4`` measures a drain instead: ``--jobs`` queued jobs (in ``--workspaces``
workspaces) drained by that many worker processes at once, each with ``--threads`` threads
running the real worker's claim-run-finish loop (as that many `herald worker` processes would),
timed from when all have started. Each job's handler spends ``--work-ms`` of CPU, then finishes
its batch (``--batch`` jobs a claim) in its own write transaction, as handlers store results.
Printed per process count: jobs per second, and per job the time spent claiming (everything the
worker loop does besides the handler), working and finishing, summed over threads, and the CPU.
``--work-ms 0`` makes the handler a no-op: what is left is the queue's own cost.

``--finish batched,per-row`` compares ways of finishing a batch in one run: ``batched`` is the
queue's (one ``DELETE ... RETURNING id`` per chunk of a lease), ``per-row`` one ``DELETE`` per
job, as the queue finished jobs before (kept here only, for the comparison). Each process count
runs every way ``--repeat`` rounds, every other round in reverse order, so a machine load that
rises or falls favours none; a summary gives each way's spread over the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KIND = "bench.claim"
LANE = "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--workspaces", type=int, default=20, help="workspaces with queued jobs")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--processes", default=None, help="drain: worker process counts, 1,2,4")
    parser.add_argument("--jobs", type=int, default=3000, help="drain: jobs queued per run")
    parser.add_argument("--threads", type=int, default=2, help="drain: threads per process")
    parser.add_argument("--work-ms", type=float, default=2.0, help="drain: CPU per job")
    parser.add_argument("--batch", type=int, default=1, help="drain: jobs per claim")
    parser.add_argument("--finish", default="batched", help="drain: batched,per-row")
    parser.add_argument("--repeat", type=int, default=1, help="drain: rounds of every way")
    args = parser.parse_args()
    if args.processes:
        drain(args)
        return

    from sqlalchemy import delete

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
                now = clock.now()
                rows = []
                for i in range(size):
                    # 95% of the backlog is one workspace's; the others share the rest.
                    others = args.workspaces - 1
                    team = "ws-0" if i % 20 != 0 else f"ws-{1 + (i // 20) % others}"
                    rows.append(job_row(i, team, 10 if team == "ws-0" else 0, now))
                load_queue(runtime, rows)
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


def job_row(i: int, team: str, priority: int, now: datetime) -> dict[str, Any]:
    """The row of one due bench job, as ``insert(Job)`` takes it."""
    return {
        "kind": KIND,
        "lane": LANE,
        "payload": {"i": i},
        "team_id": team,
        "status": "queued",
        "priority": priority,
        "run_at": now,
        "attempts": 0,
        "max_attempts": 3,
        "created_at": now,
        "updated_at": now,
    }


def load_queue(runtime: Any, rows: list[dict[str, Any]]) -> None:
    """The bench lane emptied, then these jobs queued; on PostgreSQL the table vacuumed, the
    steady state autovacuum keeps (the previous run's deleted rows gone)."""
    from sqlalchemy import delete, insert

    from herald.db.models.job import Job, JobTurn

    with runtime.sessions.write() as session:
        session.execute(delete(Job).where(Job.lane == LANE))
        session.execute(delete(JobTurn).where(JobTurn.lane == LANE))
        for start in range(0, len(rows), 5000):
            session.execute(insert(Job), rows[start : start + 5000])
    if runtime.sessions.engine.dialect.name == "postgresql":
        with runtime.sessions.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                "VACUUM ANALYZE jobs"
            )


def finish_per_row(session: Any, jobs: Any) -> None:
    """How the queue finished jobs before: one ``DELETE`` per job, its row count checked."""
    from sqlalchemy import delete

    from herald.db.models.job import Job
    from herald.jobs.queue import LeaseLost

    for job in jobs:
        result = session.execute(
            delete(Job)
            .where(
                Job.id == job.id,
                Job.worker_id == job.worker_id,
                Job.attempts == job.attempts,
                Job.status == "running",
            )
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            raise LeaseLost(f"job {job.id} is no longer leased to {job.worker_id}")


def _drain_process(settings: Any, options: dict[str, Any], ready: Any, results: Any) -> None:
    """One `herald worker`-like process: ``threads`` threads run the worker's claim-run-finish
    loop until the lane has no queued job left; returns its timings."""
    import threading

    from sqlalchemy import func, select

    from herald.db.models.job import Job
    from herald.jobs import queue
    from herald.jobs.registry import job_handler, load_handlers
    from herald.jobs.worker import Worker, new_worker_id
    from herald.runtime import Runtime

    load_handlers()
    if options["finish"] == "per-row":
        queue.finish = finish_per_row  # type: ignore[assignment]
    spent = {"work": 0.0, "finish": 0.0, "loop": 0.0, "jobs": 0}
    lock = threading.Lock()
    work_seconds = options["work_ms"] / 1000

    def handler(ctx: Any, jobs: Any) -> None:
        started = time.perf_counter()
        for _ in jobs:  # the handler's own work, on the CPU
            until = time.thread_time() + work_seconds
            while time.thread_time() < until:
                pass
        worked = time.perf_counter()
        with ctx.runtime.sessions.write() as session:
            ctx.finish(session, jobs)
        with lock:
            spent["work"] += worked - started
            spent["finish"] += time.perf_counter() - worked

    job_handler(KIND, lane=LANE, batch_size=options["batch"])(handler)
    runtime = Runtime(settings)
    worker = Worker(runtime, lane_threads={LANE: options["threads"]})

    def loop() -> None:
        worker_id = new_worker_id(LANE)
        while True:
            started = time.perf_counter()
            done = worker.run_once(LANE, worker_id)
            with lock:
                spent["loop"] += time.perf_counter() - started
                spent["jobs"] += done
            if done == 0:
                with runtime.sessions.read() as session:
                    waiting = session.scalar(
                        select(func.count()).where(Job.lane == LANE, Job.status == "queued")
                    )
                if not waiting:
                    return

    ready.wait()
    cpu = time.process_time()
    threads = [threading.Thread(target=loop) for _ in range(options["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put({**spent, "cpu": time.process_time() - cpu, "end": time.time()})
    runtime.close()


def drain(args: argparse.Namespace) -> None:
    """Drain ``--jobs`` jobs with each of ``--processes`` worker process counts and each way of
    ``--finish``, ``--repeat`` rounds; then each way's spread of jobs/s and CPU per job."""
    import os

    from herald.config import Settings
    from herald.db.migrate import upgrade
    from herald.runtime import Runtime

    ways = args.finish.split(",")
    with tempfile.TemporaryDirectory(prefix="herald-drain-") as tmp:
        settings = Settings(home=Path(tmp), database_url=args.database_url, log_level="ERROR")
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        print(
            f"machine: {os.cpu_count()} cores, shared with other sessions (load average given "
            f"before -> after each run)\ndatabase: {runtime.sessions.engine.dialect.name}; "
            f"{args.jobs:,} jobs in {args.workspaces} workspaces, {args.threads} threads a "
            f"process, {args.work_ms:g} ms CPU a job, {args.batch} a claim"
        )
        figures: dict[tuple[int, str], list[tuple[float, float]]] = {}
        try:
            for processes in [int(n) for n in args.processes.split(",")]:
                for round_ in range(args.repeat):
                    # every other round in reverse: a load that rises or falls favours none
                    for way in ways if round_ % 2 == 0 else ways[::-1]:
                        options = {
                            "threads": args.threads,
                            "work_ms": args.work_ms,
                            "batch": args.batch,
                            "finish": way,
                        }
                        rate, cpu = drain_once(runtime, settings, options, processes, args)
                        figures.setdefault((processes, way), []).append((rate, cpu))
        finally:
            runtime.close()
        print("summary (min-max over rounds):")
        for (processes, way), runs in figures.items():
            rates, cpus = [r for r, _ in runs], [c for _, c in runs]
            print(
                f"  {processes} process(es), finish {way:<8}: {min(rates):,.0f}-{max(rates):,.0f}"
                f" jobs/s (median {statistics.median(rates):,.0f}); CPU per job "
                f"{min(cpus):.2f}-{max(cpus):.2f} ms (median {statistics.median(cpus):.2f})"
            )


def drain_once(
    runtime: Any, settings: Any, options: dict[str, Any], processes: int, args: Any
) -> tuple[float, float]:
    """One drain of a fresh queue by ``processes`` worker processes: jobs/s, CPU ms per job."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    now = runtime.clock.now()
    load_queue(runtime, [job_row(i, f"ws-{i % args.workspaces}", 0, now) for i in range(args.jobs)])
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    ready = context.Barrier(processes + 1)
    results = context.Queue()
    children = [
        context.Process(target=_drain_process, args=(settings, options, ready, results))
        for _ in range(processes)
    ]
    for child in children:
        child.start()
    ready.wait()
    started = time.time()
    figures = [results.get() for _ in children]
    for child in children:
        child.join()
    wall = max(f["end"] for f in figures) - started
    done = sum(f["jobs"] for f in figures)
    total = {k: sum(f[k] for f in figures) for k in ("work", "finish", "loop", "cpu")}
    claiming = total["loop"] - total["work"] - total["finish"]
    per_job = {k: 1000 * v / max(done, 1) for k, v in total.items()}
    print(
        f"{processes} process(es) x {args.threads} threads, finish {options['finish']}: "
        f"{done:,} jobs in {wall:.1f} s = {done / wall:,.0f} jobs/s; per job: claiming "
        f"{1000 * claiming / max(done, 1):.2f} ms, working {per_job['work']:.2f} ms, "
        f"finishing {per_job['finish']:.2f} ms (thread time); CPU {per_job['cpu']:.2f} ms; "
        f"load {load} -> {' '.join(Path('/proc/loadavg').read_text().split()[:3])}",
        flush=True,
    )
    return done / wall, per_job["cpu"]


if __name__ == "__main__":
    main()
