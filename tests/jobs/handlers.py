"""Job kinds used by the queue tests (also imported by the crash-test subprocess)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from herald.core.ids import new_id
from herald.db.models.workspace import Team
from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler
from herald.jobs.worker import JobContext, PermanentJobError

calls: list[str] = []


def _create_teams(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    """The workspace each job's payload names, created as the jobs finish (one transaction)."""
    with ctx.runtime.sessions.write() as session:
        for job in jobs:
            session.add(
                Team(
                    id=new_id("team"), name=job.payload["name"], created_at=ctx.runtime.clock.now()
                )
            )
        ctx.finish(session, jobs)


@job_handler("test.create_team", retry=RetryPolicy(max_attempts=3, delays=(10.0, 60.0)))
def create_team(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    """Creates a workspace named by the payload: an observable, transactional side effect."""
    marker = os.environ.get("HERALD_TEST_MARKER")
    for job in jobs:
        calls.append(job.payload["name"])
        if job.payload.get("fail_times", 0) >= job.attempts:
            raise RuntimeError(f"planned failure {job.attempts}")
        if job.payload.get("permanent"):
            raise PermanentJobError("cannot ever work")
        if marker and job.payload.get("slow") and not Path(marker).exists():
            Path(marker).write_text(str(os.getpid()))
            time.sleep(job.payload.get("sleep", 60))  # killed (or stopped) here by crash tests
    _create_teams(ctx, jobs)


batches: list[list[str]] = []


@job_handler("test.batch", batch_size=5)
def batch(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    names = [job.payload["name"] for job in jobs]
    batches.append(names)
    if len(jobs) > 1 and any(job.payload.get("poison") for job in jobs):
        raise ValueError("a poison item sinks the batch")
    if any(job.payload.get("poison") for job in jobs):
        raise ValueError("poison")
    with ctx.runtime.sessions.write() as session:
        for name in names:
            session.add(Team(id=new_id("team"), name=name, created_at=ctx.runtime.clock.now()))
        ctx.finish(session, jobs)


gave_up: list[tuple[int, str]] = []


def _record_give_up(session: object, job: ClaimedJob, error: str) -> None:
    gave_up.append((job.id, error))


@job_handler(
    "test.always_fails",
    retry=RetryPolicy(max_attempts=2, delays=(5.0,)),
    on_give_up=_record_give_up,
)
def always_fails(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    raise RuntimeError("nope")


hang_started = threading.Event()
hang_interrupted = threading.Event()


@job_handler(
    "test.hangs_once", retry=RetryPolicy(max_attempts=3, delays=(1.0,)), max_run_seconds=3.0
)
def hangs_once(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    """Hangs on its first attempt (a Python-level wait loop, or a blocking sleep when asked)."""
    for job in jobs:
        if job.attempts == 1:
            hang_started.set()
            if job.payload.get("blocking"):
                time.sleep(3600)  # killed with the subprocess
            try:
                while True:
                    time.sleep(0.01)
            except BaseException:
                hang_interrupted.set()
                raise
    with ctx.runtime.sessions.write() as session:
        for job in jobs:
            session.add(
                Team(
                    id=new_id("team"),
                    name=f"{job.payload['name']}-{job.attempts}",
                    created_at=ctx.runtime.clock.now(),
                )
            )
        ctx.finish(session, jobs)


hold_started = threading.Event()
hold_release = threading.Event()


@job_handler("test.holds")
def holds(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    """Its first run waits until the test releases it (at most 30 s); every run creates the
    workspace it names."""
    first = not hold_started.is_set()
    calls.extend(job.payload["name"] for job in jobs)
    hold_started.set()
    if first:
        hold_release.wait(30)
    _create_teams(ctx, jobs)
