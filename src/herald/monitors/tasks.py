"""Durable work of the monitors area: the dated-job handler and the scheduler's periodic claim.

Thin by design: open units of work, call :mod:`herald.monitors.dated_jobs`,
:mod:`herald.monitors.run_states` and :mod:`herald.monitors.scheduling`, commit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.db.models.job import Job
from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler, periodic
from herald.jobs.worker import JobContext, PermanentJobError
from herald.monitors.dated_jobs import complete_runs, start_runs
from herald.monitors.ports import monitor_search
from herald.monitors.queueing import DATED_JOB_KIND
from herald.monitors.run_states import give_up_run, retry_or_give_up
from herald.monitors.scheduling import CLAIM_BATCH, claim_due_monitors
from herald.search.types import SearchHit

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

# A dated run whose search fails is tried five times over about 40 minutes: long enough to ride
# out a restart of the search index or a busy database, short enough that a date does not stay
# "running" for hours. The same policy covers the durable job itself (a failing write).
DATED_RUN_RETRY = RetryPolicy(max_attempts=5, delays=(10.0, 60.0, 300.0, 1800.0))
DATED_JOB_BATCH = 8  # durable jobs per claim: up to 32 dated runs
SCHEDULE_INTERVAL_SECONDS = 5.0
MAX_CLAIM_ROUNDS = 500


class _Instant:
    """A clock stopped at one instant: the moment the queue recorded a job's final failure."""

    def __init__(self, instant: datetime) -> None:
        self._instant = instant

    def now(self) -> datetime:
        return self._instant

    def monotonic(self) -> float:
        return self._instant.timestamp()

    def sleep(self, seconds: float) -> None:
        raise RuntimeError("a stopped clock cannot sleep")


def _run_ids(job: ClaimedJob) -> list[str]:
    run_ids = job.payload.get("run_ids")
    if not isinstance(run_ids, list) or not all(isinstance(r, str) for r in run_ids):
        raise PermanentJobError(f"job {job.id} has no run_ids")
    return run_ids


def _give_up(session: Session, job: ClaimedJob, error: str) -> None:
    """The durable job failed for good (not a search: those retry per run): fail its runs."""
    # The hook has no runtime; the queue has just stamped the failure with the injected clock.
    stamped = session.execute(
        select(Job.finished_at, Job.updated_at).where(Job.id == job.id)
    ).one_or_none()
    if stamped is None:
        return
    clock = _Instant(stamped.finished_at or stamped.updated_at)
    run_ids = job.payload.get("run_ids")
    for run_id in run_ids if isinstance(run_ids, list) else []:
        if isinstance(run_id, str):
            give_up_run(session, run_id, error, clock=clock)


@job_handler(DATED_JOB_KIND, retry=DATED_RUN_RETRY, batch_size=DATED_JOB_BATCH, on_give_up=_give_up)
def run_dated_jobs(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    """Start the jobs' dated runs, search each date outside any transaction, then store all
    results, schedule retries of failed searches and finish the jobs in one transaction."""
    runtime = ctx.runtime
    clock = runtime.clock
    run_ids = [run_id for job in jobs for run_id in _run_ids(job)]
    with runtime.sessions.write() as session:
        started = start_runs(session, run_ids, clock=clock)
    search = monitor_search(runtime) if started else None
    hits: dict[str, list[SearchHit]] = {}
    failures: dict[str, str] = {}
    for run in started:
        assert search is not None
        try:
            with runtime.sessions.read() as session:
                request = run.search.dated_request(run.published_date)
                hits[run.run_id] = search.search(session, request)
        except Exception as exc:  # noqa: BLE001 - a failed search is retried per dated run
            failures[run.run_id] = f"{type(exc).__name__}: {exc}"
            log.warning(
                "dated job search failed",
                extra={"run_id": run.run_id, "error": failures[run.run_id]},
            )
    with runtime.sessions.write() as session:
        complete_runs(
            session, [(run, hits[run.run_id]) for run in started if run.run_id in hits], clock=clock
        )
        retry_or_give_up(session, failures, clock=clock, policy=DATED_RUN_RETRY)
        ctx.finish(session, jobs)


@periodic("monitors.schedule", interval_seconds=SCHEDULE_INTERVAL_SECONDS)
def schedule_monitors(runtime: Runtime) -> int:
    """Claim every due slot, a batch per transaction; returns how many runs were queued."""
    queued = 0
    for _ in range(MAX_CLAIM_ROUNDS):
        with runtime.sessions.write() as session:
            report = claim_due_monitors(session, clock=runtime.clock)
        queued += len(report.runs)
        if report.examined < CLAIM_BATCH:
            break
    return queued
