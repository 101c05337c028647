"""The durable job queue: enqueue in the caller's transaction (:mod:`herald.jobs.enqueueing`);
claim with leases, fairly between workspaces (:mod:`herald.jobs.claiming`); finish or fail. This
module re-exports ``enqueue``, ``enqueue_many``, ``claim``, ``ClaimedJob`` and ``LeaseLost`` for
its callers.

A job is finished by deleting its row in the same transaction as its work, and only while this
worker still holds the lease: a worker whose lease expired (it was presumed dead and the job was
handed to another) cannot also commit its results.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.models.job import Job
from herald.jobs.claimed import ClaimedJob as ClaimedJob
from herald.jobs.claimed import LeaseLost as LeaseLost
from herald.jobs.claiming import claim as claim
from herald.jobs.claiming import lane_has_jobs as lane_has_jobs
from herald.jobs.enqueueing import enqueue as enqueue
from herald.jobs.enqueueing import enqueue_many as enqueue_many
from herald.jobs.registry import get_kind, known_kinds

FINISH_CHUNK = 500  # ids per DELETE: well below every driver's limit on bound parameters


def finish(session: Session, jobs: Sequence[ClaimedJob]) -> None:
    """Delete succeeded jobs in the caller's (work) transaction; LeaseLost if one was taken over.

    One ``DELETE ... RETURNING id`` per chunk of ids leased under the same worker and attempt
    (a batch is usually one such group), each deleting only rows still running under that
    lease. When a job's row was not deleted (another worker took it over, or it is gone),
    LeaseLost names the first such job in ``jobs``' order; the caller's transaction then must
    not commit, which also undoes the deletions this call made.
    """
    leases: dict[tuple[str, int], list[int]] = {}
    for job in jobs:
        leases.setdefault((job.worker_id, job.attempts), []).append(job.id)
    deleted: set[int] = set()
    for (worker_id, attempts), ids in leases.items():
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), FINISH_CHUNK):
            deleted.update(
                session.scalars(
                    delete(Job)
                    .where(
                        Job.id.in_(unique[start : start + FINISH_CHUNK]),
                        Job.worker_id == worker_id,
                        Job.attempts == attempts,
                        Job.status == "running",
                    )
                    .returning(Job.id)
                    .execution_options(synchronize_session=False)
                )
            )
    for job in jobs:
        if job.id not in deleted:
            raise LeaseLost(f"job {job.id} is no longer leased to {job.worker_id}")


def fail(session: Session, job: ClaimedJob, error: str, *, clock: Clock, permanent: bool) -> bool:
    """Record a failed attempt: requeue with the kind's backoff, or fail for good.

    Returns True when the job failed for good (the caller then runs the kind's give-up hook in
    this same transaction). A job whose lease was lost is left to its new owner.
    """
    spec = get_kind(job.kind)
    delay = None if permanent else spec.retry.delay_after(job.attempts)
    now = clock.now()
    owned = and_(Job.id == job.id, Job.worker_id == job.worker_id, Job.attempts == job.attempts)
    values: dict[str, Any] = {"last_error": error[:4000], "updated_at": now, "worker_id": None}
    if delay is None:
        values |= {"status": "failed", "finished_at": now, "lease_expires_at": None}
    else:
        values |= {
            "status": "queued",
            "run_at": now + timedelta(seconds=delay),
            "lease_expires_at": None,
        }
    result = session.execute(
        update(Job).where(owned).values(**values).execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        return False
    return delay is None


def extend_leases(
    session: Session, job_ids: Sequence[int], *, worker_id: str, clock: Clock, lease_seconds: float
) -> int:
    if not job_ids:
        return 0
    result = session.execute(
        update(Job)
        .where(Job.id.in_(job_ids), Job.worker_id == worker_id, Job.status == "running")
        .values(lease_expires_at=clock.now() + timedelta(seconds=lease_seconds))
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def expired_exhausted(session: Session, *, clock: Clock, limit: int = 100) -> list[Job]:
    """Running jobs whose lease expired with no attempts left (their worker died on the last).

    Only of kinds this process knows: the kind's give-up hook must run with the failure.
    """
    return list(
        session.scalars(
            select(Job)
            .where(
                Job.status == "running",
                Job.lease_expires_at < clock.now(),
                Job.attempts >= Job.max_attempts,
                Job.kind.in_(sorted(known_kinds())),
            )
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )


def fail_unknown_kinds(session: Session, *, clock: Clock, waited_seconds: float) -> int:
    """Fail jobs of kinds no process has claimed for ``waited_seconds`` after they were due.

    A job of a kind this process does not know is left for a process that does (rolling
    deploys); one still unclaimed that long after it was due belongs to no running version (a
    kind that was removed, a deploy rolled back), so it fails with an error that says so.
    """
    now = clock.now()
    cutoff = now - timedelta(seconds=waited_seconds)
    waiting = or_(
        and_(Job.status == "queued", Job.run_at < cutoff),
        # leased by a (newer) worker that died, and no worker of that version since
        and_(Job.status == "running", Job.lease_expires_at < cutoff),
    )
    stale = select(Job.id).where(waiting, Job.kind.not_in(sorted(known_kinds())))
    result = session.execute(
        update(Job)
        .where(Job.id.in_(stale.scalar_subquery()))
        .values(
            status="failed",
            finished_at=now,
            updated_at=now,
            worker_id=None,
            lease_expires_at=None,
            last_error=(
                "UnknownJobKind: no worker has a handler for this job kind; it waited "
                f"{waited_seconds:g} s after it was due"
            ),
        )
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def counts_by_kind_and_status(session: Session) -> list[tuple[str, str, int]]:
    rows = session.execute(
        select(Job.kind, Job.status, func.count()).group_by(Job.kind, Job.status)
    ).all()
    return [(kind, status, int(count)) for kind, status, count in rows]


def oldest_due_by_kind(session: Session, *, now: datetime) -> list[tuple[str, datetime]]:
    """When the oldest queued job of each kind became due, for kinds with a due job waiting."""
    rows = session.execute(
        select(Job.kind, func.min(Job.run_at))
        .where(Job.status == "queued", Job.run_at <= now)
        .group_by(Job.kind)
    ).all()
    return [(kind, due) for kind, due in rows]


def pending_count(session: Session, *, kinds: Sequence[str] | None = None) -> int:
    query = select(func.count()).select_from(Job).where(Job.status.in_(("queued", "running")))
    if kinds is not None:
        query = query.where(Job.kind.in_(kinds))
    return int(session.execute(query).scalar_one())


def key_status(session: Session, unique_key: str) -> str | None:
    """``"running"`` while a job with this unique key runs, else ``"queued"`` while one waits,
    else None (a failed job does not count: it will not run again)."""
    statuses = set(
        session.scalars(
            select(Job.status).where(
                Job.unique_key == unique_key, Job.status.in_(("queued", "running"))
            )
        )
    )
    return "running" if "running" in statuses else "queued" if statuses else None
