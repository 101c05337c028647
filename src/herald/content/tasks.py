"""The daily retention job: a periodic check queues one job per UTC day, a worker runs it.

Every scheduler looks each hour, unless no policy limits anything (no global limit and no source
with its own); the job's unique key is the day, and a day whose job is queued or running is not
queued again (a finished job leaves the queue, so a later check repeats the day's pass, which
then deletes nothing). Two schedulers racing past the check
cost one extra pass that deletes nothing (applying the policy is idempotent).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.content.retention import apply_retention
from herald.db.models.ingest import Source
from herald.jobs.enqueueing import enqueue_once
from herald.jobs.registry import RetryPolicy, job_handler, periodic

if TYPE_CHECKING:
    from herald.jobs.queue import ClaimedJob
    from herald.jobs.worker import JobContext
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

RETENTION_JOB = "content.retention"
CHECK_SECONDS = 3600.0


@periodic("content.schedule_retention", interval_seconds=CHECK_SECONDS)
def schedule_retention(runtime: Runtime) -> bool:
    """Queue today's retention job unless it is queued or running, or no policy limits anything
    (no global limit and no source with its own); True if queued."""
    key = f"retention:{runtime.clock.now().date().isoformat()}"
    with runtime.sessions.write() as session:
        if not runtime.settings.retention_days and not _a_source_limits(session):
            return False
        return (
            enqueue_once(session, RETENTION_JOB, {}, clock=runtime.clock, unique_key=key)
            is not None
        )


def _a_source_limits(session: Session) -> bool:
    limited = select(Source.id).where(Source.retention_days > 0).limit(1)
    return session.scalar(limited) is not None


@job_handler(RETENTION_JOB, retry=RetryPolicy(max_attempts=3, delays=(300.0, 1800.0)))
def handle_retention(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    del jobs
    runtime = ctx.runtime
    outcomes = apply_retention(
        runtime.sessions, default_days=runtime.settings.retention_days, clock=runtime.clock
    )
    deleted = sum(outcome.deleted for outcome in outcomes)
    if deleted:
        log.info("retention deleted items", extra={"count": deleted})
