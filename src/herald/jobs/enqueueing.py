"""Enqueuing: a job (or a batch of one kind) added in the caller's transaction, a job equal to
one still queued (the same unique key) dropped. :mod:`herald.jobs.claiming` claims them,
:mod:`herald.jobs.queue` finishes and fails them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.dialect import insert_for
from herald.db.models.job import Job
from herald.jobs.registry import get_kind

__all__ = ["QUEUED_PREDICATE", "enqueue", "enqueue_many", "enqueue_once"]

QUEUED_PREDICATE = text("status = 'queued'")


def _job_row(
    kind: str,
    payload: dict[str, Any],
    *,
    now: datetime,
    unique_key: str | None,
    run_at: datetime | None,
    priority: int,
    team_id: str | None,
) -> dict[str, Any]:
    spec = get_kind(kind)
    return {
        "kind": kind,
        "lane": spec.lane,
        "payload": payload,
        "unique_key": unique_key,
        "team_id": team_id,
        "status": "queued",
        "priority": priority,
        "run_at": run_at or now,
        "attempts": 0,
        "max_attempts": spec.retry.max_attempts,
        "created_at": now,
        "updated_at": now,
    }


def _insert_dropping_queued_duplicates(session: Session) -> Any:
    upsert = insert_for(session, Job)
    return upsert.on_conflict_do_nothing(
        index_elements=["unique_key"], index_where=QUEUED_PREDICATE
    )


def enqueue(
    session: Session,
    kind: str,
    payload: dict[str, Any],
    *,
    clock: Clock,
    unique_key: str | None = None,
    run_at: datetime | None = None,
    priority: int = 0,
    team_id: str | None = None,
) -> int | None:
    """Add a job in the caller's transaction; returns its id, or None if an equal job is queued."""
    values = _job_row(
        kind,
        payload,
        now=clock.now(),
        unique_key=unique_key,
        run_at=run_at,
        priority=priority,
        team_id=team_id,
    )
    job_id: int | None
    if unique_key is None:
        job_id = session.execute(insert(Job).values(**values).returning(Job.id)).scalar_one()
    else:
        statement = _insert_dropping_queued_duplicates(session).values(**values).returning(Job.id)
        job_id = session.execute(statement).scalar_one_or_none()
    if job_id is not None:
        session.info["herald_jobs_enqueued"] = True
    return job_id


# PostgreSQL: enqueue_once holds the two-int advisory lock (this, hashtext(key)) while it checks.
_ONCE_LOCK = text("SELECT pg_advisory_xact_lock(18513, hashtext(:key))")


def enqueue_once(
    session: Session, kind: str, payload: dict[str, Any], *, clock: Clock, unique_key: str
) -> int | None:
    """Add a job unless one with ``unique_key`` exists in any state (queued, running or done);
    returns its id, or None. The unique key alone drops only a job equal to one still queued:
    once a worker claims the first, a second process that had checked before could add it again.
    On PostgreSQL the check and the insert hold a lock on the key until the caller's transaction
    ends; SQLite's write transactions run one at a time."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(_ONCE_LOCK, {"key": unique_key})
    if session.scalar(select(Job.id).where(Job.unique_key == unique_key).limit(1)) is not None:
        return None
    return enqueue(session, kind, payload, clock=clock, unique_key=unique_key)


def enqueue_many(
    session: Session,
    kind: str,
    jobs: Sequence[tuple[dict[str, Any], str | None]],
    *,
    clock: Clock,
    priority: int = 0,
) -> int:
    """Enqueue many ``(payload, unique_key)`` jobs of one kind in one statement; returns how
    many were added.

    The same rows and the same drop-if-queued rule as :func:`enqueue` (a key already queued,
    or twice in ``jobs``, drops the later job), without a round trip per job (bulk ingestion
    enqueues one enrichment job per item, enrichment a clustering job per news item).
    """
    if not jobs:
        return 0
    now = clock.now()
    if _ONE_STATEMENT_ON_POSTGRES and session.get_bind().dialect.name == "postgresql":
        added = _enqueue_many_postgres(session, kind, jobs, now=now, priority=priority)
    else:
        rows = [
            _job_row(
                kind,
                payload,
                now=now,
                unique_key=key,
                run_at=None,
                priority=priority,
                team_id=None,
            )
            for payload, key in jobs
        ]
        statement = _insert_dropping_queued_duplicates(session)
        added = session.connection().execute(statement, rows).rowcount
    if added:
        session.info["herald_jobs_enqueued"] = True
    return added


# Whether PostgreSQL takes a batch of jobs as one statement (tests compare its rows with the
# portable path's).
_ONE_STATEMENT_ON_POSTGRES = True


# The rows enqueue_many writes, the payloads and keys as two arrays: one statement and one plan
# for the whole batch instead of an execution per job. WITH ORDINALITY keeps the given order, so
# ids are assigned as by one INSERT per job; a key already queued (or twice in the batch) drops
# the later job, as there.
_ENQUEUE_MANY_PG = (
    f"INSERT INTO {Job.__tablename__} (kind, lane, payload, unique_key, team_id, status,"
    " priority, run_at, attempts, max_attempts, created_at, updated_at)"
    " SELECT %(kind)s, %(lane)s, t.payload::jsonb, t.unique_key, NULL, 'queued', %(priority)s,"
    " %(now)s, 0, %(max_attempts)s, %(now)s, %(now)s"
    " FROM unnest(%(payloads)s::text[], %(keys)s::text[]) WITH ORDINALITY"
    " AS t(payload, unique_key, n) ORDER BY t.n"
    " ON CONFLICT (unique_key) WHERE status = 'queued' DO NOTHING"
)


def _enqueue_many_postgres(
    session: Session,
    kind: str,
    jobs: Sequence[tuple[dict[str, Any], str | None]],
    *,
    now: datetime,
    priority: int,
) -> int:
    """Queue ``jobs`` of one kind as :func:`enqueue_many` does, in one statement."""
    spec = get_kind(kind)
    connection = session.connection()
    serialize = getattr(connection.dialect, "_json_serializer", None) or json.dumps
    parameters = {
        "kind": kind,
        "lane": spec.lane,
        "priority": priority,
        "now": now.astimezone(UTC),
        "max_attempts": spec.retry.max_attempts,
        "payloads": [serialize(payload) for payload, _ in jobs],
        "keys": [key for _, key in jobs],
    }
    return int(connection.exec_driver_sql(_ENQUEUE_MANY_PG, parameters).rowcount)
