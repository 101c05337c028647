"""Finishing many jobs at once: one DELETE per chunk of a lease, and a lost lease among many."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, func, insert, select, update

from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.db.models.workspace import Team
from herald.jobs import queue
from herald.jobs.queue import ClaimedJob, LeaseLost
from herald.runtime import Runtime

WORKER = "worker-a"


def running_jobs(runtime: Runtime, clock: FrozenClock, count: int, **lease: Any) -> list[int]:
    """``count`` jobs leased to a worker, as a claim leaves them (attempts 1 unless given)."""
    now = clock.now()
    row = {
        "kind": "test.create_team",
        "lane": "default",
        "payload": {"name": "x"},
        "status": "running",
        "priority": 0,
        "run_at": now,
        "attempts": 1,
        "max_attempts": 3,
        "worker_id": WORKER,
        "lease_expires_at": now + timedelta(seconds=60),
        "created_at": now,
        "updated_at": now,
    } | lease
    with runtime.sessions.write() as session:
        return list(session.scalars(insert(Job).returning(Job.id), [row] * count))


def as_claimed(runtime: Runtime, ids: list[int]) -> list[ClaimedJob]:
    """The jobs as the worker holds them: their lease as it is now."""
    with runtime.sessions.read() as session:
        rows = {job.id: job for job in session.scalars(select(Job).where(Job.id.in_(ids)))}
    return [
        ClaimedJob(
            id=rows[i].id,
            kind=rows[i].kind,
            payload=rows[i].payload,
            attempts=rows[i].attempts,
            max_attempts=rows[i].max_attempts,
            team_id=rows[i].team_id,
            unique_key=rows[i].unique_key,
            worker_id=rows[i].worker_id or "",
            created_at=rows[i].created_at,
        )
        for i in ids
    ]


def job_ids(runtime: Runtime) -> list[int]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(Job.id).order_by(Job.id)))


@contextmanager
def deletes(runtime: Runtime) -> Iterator[list[str]]:
    """The DELETE statements sent to the database while the block runs."""
    sent: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("DELETE"):
            sent.append(statement)

    engine = runtime.sessions.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_finishing_many_jobs_deletes_them_all_one_statement_per_chunk(
    runtime: Runtime, clock: FrozenClock
) -> None:
    count = 2 * queue.FINISH_CHUNK + 3
    finished = running_jobs(runtime, clock, count)
    retried = running_jobs(runtime, clock, 2, attempts=2)  # a batch can mix attempts
    others = running_jobs(runtime, clock, 3, worker_id="worker-b")
    batch = as_claimed(runtime, finished[:5] + retried + finished[5:])
    with deletes(runtime) as sent, runtime.sessions.write() as session:
        queue.finish(session, batch)
    assert len(sent) == 3 + 1  # three chunks of the first lease, one of the retried jobs
    assert all("RETURNING" in statement.upper() for statement in sent)
    assert job_ids(runtime) == others


@pytest.mark.parametrize(
    "takeover",
    [
        {"worker_id": "worker-b"},  # its lease expired and another worker claimed it
        {"attempts": 2},  # requeued, then claimed again under this worker's name
        {"status": "queued", "worker_id": None},  # requeued by a failed attempt
        {"status": "failed"},
    ],
)
def test_one_job_taken_over_among_many_raises_and_nothing_is_deleted(
    runtime: Runtime, clock: FrozenClock, takeover: dict[str, Any]
) -> None:
    ids = running_jobs(runtime, clock, queue.FINISH_CHUNK + 20)
    batch = as_claimed(runtime, ids)
    lost = ids[queue.FINISH_CHUNK + 7]  # in the second chunk, after a chunk that deleted
    also_lost = ids[-1]
    with runtime.sessions.write() as session:
        session.execute(update(Job).where(Job.id.in_([lost, also_lost])).values(**takeover))
    lost_lease = pytest.raises(LeaseLost, match=f"job {lost} is no longer leased to {WORKER}")
    with lost_lease, runtime.sessions.write() as session:
        session.add(Team(id="team_results", name="results", created_at=clock.now()))
        queue.finish(session, batch)
    assert job_ids(runtime) == ids
    with runtime.sessions.read() as session:
        assert session.scalar(select(func.count()).select_from(Team)) == 0


def test_a_job_already_deleted_is_a_lost_lease(runtime: Runtime, clock: FrozenClock) -> None:
    ids = running_jobs(runtime, clock, 4)
    batch = as_claimed(runtime, ids)
    with runtime.sessions.write() as session:
        queue.finish(session, batch[2:3])
    with pytest.raises(LeaseLost, match=f"job {ids[2]} "), runtime.sessions.write() as session:
        queue.finish(session, batch)
    assert job_ids(runtime) == ids[:2] + ids[3:]


def test_finishing_no_jobs_sends_nothing(runtime: Runtime) -> None:
    with deletes(runtime) as sent, runtime.sessions.write() as session:
        queue.finish(session, [])
    assert sent == []
