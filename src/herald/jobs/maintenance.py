"""Housekeeping run by the scheduler: the queue's, and SQLite's write-ahead log."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from herald.db.engine import restart_wal
from herald.jobs import queue
from herald.jobs.registry import get_kind, periodic

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

WAL_RESTART_SECONDS = 30.0


@periodic("jobs.fail_abandoned", interval_seconds=30.0)
def fail_abandoned_jobs(runtime: Runtime) -> int:
    """Fail jobs whose worker died during their last allowed attempt (no one else will run them)."""
    failed = 0
    with runtime.sessions.write() as session:
        for job in queue.expired_exhausted(session, clock=runtime.clock):
            claimed = queue.ClaimedJob(
                id=job.id,
                kind=job.kind,
                payload=job.payload,
                attempts=job.attempts,
                max_attempts=job.max_attempts,
                team_id=job.team_id,
                unique_key=job.unique_key,
                worker_id=job.worker_id or "",
                created_at=job.created_at,
            )
            error = "lease expired on the last attempt (worker lost)"
            if queue.fail(session, claimed, error, clock=runtime.clock, permanent=True):
                failed += 1
                try:
                    hook = get_kind(job.kind).on_give_up
                except LookupError:
                    hook = None
                if hook is not None:
                    hook(session, claimed, error)
    if failed:
        log.warning("failed abandoned jobs", extra={"count": failed})
    return failed


@periodic("jobs.fail_unknown_kinds", interval_seconds=300.0)
def fail_unknown_kind_jobs(runtime: Runtime) -> int:
    """Fail jobs that no running version could run for ``job_unknown_kind_seconds``."""
    with runtime.sessions.write() as session:
        failed = queue.fail_unknown_kinds(
            session,
            clock=runtime.clock,
            waited_seconds=runtime.settings.job_unknown_kind_seconds,
        )
    if failed:
        log.error("failed jobs of a kind no worker knows", extra={"count": failed})
    return failed


@periodic("db.restart_wal", interval_seconds=WAL_RESTART_SECONDS)
def restart_sqlite_wal(runtime: Runtime) -> bool | None:
    """SQLite: start the write-ahead log over once it passes 16 MiB, so readers that are always
    open do not make it grow for good (:func:`herald.db.engine.restart_wal`); True if it did.
    Nothing on PostgreSQL."""
    result = restart_wal(runtime.engine)
    if result is None:
        return None
    if not result.restarted and result.frames:
        log.info(
            "write-ahead log not restarted: a reader held an older snapshot",
            extra={"frames": result.frames},
        )
    return result.restarted
