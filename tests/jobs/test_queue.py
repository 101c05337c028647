"""The durable job queue on both backends."""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.db.models.workspace import Team
from herald.jobs import queue
from herald.jobs.queue import LeaseLost
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.jobs import handlers


def team_names(runtime: Runtime) -> list[str]:
    with runtime.sessions.read() as session:
        return sorted(session.scalars(select(Team.name)))


def job_rows(runtime: Runtime) -> list[Job]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(Job).order_by(Job.id)))


def enqueue(runtime: Runtime, kind: str, payload: dict[str, object], **kw: object) -> int | None:
    with runtime.sessions.write() as session:
        return queue.enqueue(session, kind, payload, clock=runtime.clock, **kw)  # type: ignore[arg-type]


def test_enqueue_is_part_of_the_callers_transaction(runtime: Runtime) -> None:
    with pytest.raises(RuntimeError), runtime.sessions.write() as session:
        queue.enqueue(session, "test.create_team", {"name": "a"}, clock=runtime.clock)
        raise RuntimeError("the request failed")
    assert job_rows(runtime) == []
    enqueue(runtime, "test.create_team", {"name": "a"})
    assert len(job_rows(runtime)) == 1


def test_a_job_runs_and_its_row_goes_with_its_work(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "alpha"})
    assert Worker(runtime).drain() == 1
    assert team_names(runtime) == ["alpha"]
    assert job_rows(runtime) == []


def test_unknown_kind_is_refused(runtime: Runtime) -> None:
    with pytest.raises(LookupError), runtime.sessions.write() as session:
        queue.enqueue(session, "nope.kind", {}, clock=runtime.clock)


def test_duplicate_enqueue_of_a_queued_job_is_dropped(runtime: Runtime) -> None:
    first = enqueue(runtime, "test.create_team", {"name": "a"}, unique_key="k1")
    second = enqueue(runtime, "test.create_team", {"name": "a"}, unique_key="k1")
    assert first is not None
    assert second is None
    assert len(job_rows(runtime)) == 1


def test_enqueue_while_running_is_kept_and_waits_for_the_run(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "a"}, unique_key="k")
    with runtime.sessions.write() as session:
        running = queue.claim(
            session, lane="default", worker_id="w1", clock=runtime.clock, lease_seconds=60
        )
    assert [j.unique_key for j in running] == ["k"]
    assert enqueue(runtime, "test.create_team", {"name": "b"}, unique_key="k") is not None
    with runtime.sessions.write() as session:
        blocked = queue.claim(
            session, lane="default", worker_id="w2", clock=runtime.clock, lease_seconds=60
        )
    assert blocked == []  # same key is running
    with runtime.sessions.write() as session:
        queue.finish(session, running)
    with runtime.sessions.write() as session:
        after = queue.claim(
            session, lane="default", worker_id="w2", clock=runtime.clock, lease_seconds=60
        )
    assert [j.payload["name"] for j in after] == ["b"]


def test_run_at_in_the_future_waits(runtime: Runtime, clock: FrozenClock) -> None:
    enqueue(
        runtime, "test.create_team", {"name": "later"}, run_at=clock.now() + timedelta(minutes=5)
    )
    assert Worker(runtime).drain() == 0
    clock.advance(timedelta(minutes=5))
    assert Worker(runtime).drain() == 1
    assert team_names(runtime) == ["later"]


def test_failures_retry_with_backoff_then_succeed(runtime: Runtime, clock: FrozenClock) -> None:
    enqueue(runtime, "test.create_team", {"name": "flaky", "fail_times": 2})
    worker = Worker(runtime)
    assert worker.drain() == 1
    [job] = job_rows(runtime)
    assert job.status == "queued"
    assert job.attempts == 1
    assert job.run_at == clock.now() + timedelta(seconds=10)
    assert "planned failure 1" in (job.last_error or "")
    clock.advance(timedelta(seconds=9))
    assert worker.drain() == 0
    clock.advance(timedelta(seconds=1))
    assert worker.drain() == 1
    [job] = job_rows(runtime)
    assert job.run_at == clock.now() + timedelta(seconds=60)
    clock.advance(timedelta(seconds=60))
    assert worker.drain() == 1
    assert team_names(runtime) == ["flaky"]
    assert job_rows(runtime) == []


def test_exhausted_retries_fail_for_good_and_run_the_hook(
    runtime: Runtime, clock: FrozenClock
) -> None:
    handlers.gave_up.clear()
    job_id = enqueue(runtime, "test.always_fails", {})
    worker = Worker(runtime)
    worker.drain()
    clock.advance(timedelta(seconds=5))
    worker.drain()
    [job] = job_rows(runtime)
    assert job.status == "failed"
    assert job.attempts == 2
    assert job.finished_at == clock.now()
    assert handlers.gave_up == [(job_id, "RuntimeError: nope")]
    clock.advance(timedelta(days=1))
    assert worker.drain() == 0


def test_permanent_errors_do_not_retry(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "x", "permanent": True})
    Worker(runtime).drain()
    [job] = job_rows(runtime)
    assert job.status == "failed"
    assert job.attempts == 1


def test_a_dead_workers_job_runs_again_after_its_lease(
    runtime: Runtime, clock: FrozenClock
) -> None:
    enqueue(runtime, "test.create_team", {"name": "orphan"})
    with runtime.sessions.write() as session:
        [dead] = queue.claim(
            session, lane="default", worker_id="dead", clock=clock, lease_seconds=30
        )
    assert Worker(runtime).drain() == 0  # still leased
    clock.advance(timedelta(seconds=31))
    assert Worker(runtime).drain() == 1
    assert team_names(runtime) == ["orphan"]
    # The presumed-dead worker wakes up: it must not commit its results too.
    with pytest.raises(LeaseLost), runtime.sessions.write() as session:
        session.add(Team(id="team_zombie", name="zombie", created_at=clock.now()))
        queue.finish(session, [dead])
    assert team_names(runtime) == ["orphan"]


def test_a_batch_with_a_poison_item_retries_the_others_alone(runtime: Runtime) -> None:
    handlers.batches.clear()
    for name in ["a", "b", "c"]:
        enqueue(runtime, "test.batch", {"name": name, "poison": name == "b"})
    Worker(runtime).drain()
    assert handlers.batches[0] == ["a", "b", "c"]
    assert team_names(runtime) == ["a", "c"]
    [failed] = job_rows(runtime)
    assert failed.payload["name"] == "b"
    assert failed.status == "queued"  # retried later with backoff


def test_priority_orders_claims(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "low"}, priority=0)
    enqueue(runtime, "test.create_team", {"name": "high"}, priority=5)
    with runtime.sessions.write() as session:
        [first] = queue.claim(
            session, lane="default", worker_id="w", clock=runtime.clock, lease_seconds=5
        )
    assert first.payload["name"] == "high"


def test_concurrent_claims_never_hand_out_a_job_twice(runtime: Runtime) -> None:
    total = 60
    with runtime.sessions.write() as session:
        for index in range(total):
            queue.enqueue(session, "test.create_team", {"name": f"t{index}"}, clock=runtime.clock)
    claimed: list[int] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def claimer(worker_id: str) -> None:
        try:
            while True:
                with runtime.sessions.write() as session:
                    jobs = queue.claim(
                        session,
                        lane="default",
                        worker_id=worker_id,
                        clock=runtime.clock,
                        lease_seconds=60,
                        limit=3,
                    )
                if not jobs:
                    return
                with lock:
                    claimed.extend(job.id for job in jobs)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(claimed) == total
    assert len(set(claimed)) == total


def test_pending_count(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "a"})
    with runtime.sessions.read() as session:
        assert queue.pending_count(session) == 1
        assert queue.pending_count(session, kinds=["test.batch"]) == 0
        counts = queue.counts_by_kind_and_status(session)
    assert ("test.create_team", "queued", 1) in counts
    with runtime.sessions.read() as session:
        assert session.execute(select(func.count()).select_from(Job)).scalar_one() == 1


def test_enqueue_many_drops_queued_duplicates_like_enqueue(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "a"}, unique_key="many:a")
    with runtime.sessions.write() as session:
        added = queue.enqueue_many(
            session,
            "test.create_team",
            [
                ({"name": "a"}, "many:a"),
                ({"name": "b"}, "many:b"),
                ({"name": "b2"}, "many:b"),  # the same key twice in the batch: the later dropped
                ({"name": "c"}, None),
            ],
            clock=runtime.clock,
        )
    assert added == 2
    assert sorted(job.payload["name"] for job in job_rows(runtime)) == ["a", "b", "c"]
    Worker(runtime).drain()
    assert team_names(runtime) == ["a", "b", "c"]


def claim_one(runtime: Runtime) -> queue.ClaimedJob:
    with runtime.sessions.write() as session:
        [job] = queue.claim(
            session, lane="default", worker_id="w", clock=runtime.clock, lease_seconds=5
        )
        queue.finish(session, [job])
    return job


def test_workspaces_take_turns_whatever_one_of_them_queued_first(runtime: Runtime) -> None:
    for i in range(30):  # a workspace's burst of high-priority run-nows, all queued first
        enqueue(runtime, "test.create_team", {"name": f"h{i}"}, priority=2, team_id="hostile")
    enqueue(runtime, "test.create_team", {"name": "b"}, priority=1, team_id="team-b")
    enqueue(runtime, "test.create_team", {"name": "c"}, priority=0, team_id="team-c")
    enqueue(runtime, "test.create_team", {"name": "system"}, priority=0)
    served = [claim_one(runtime).team_id for _ in range(6)]
    assert sorted(served[:4], key=str) == sorted(["hostile", "team-b", "team-c", None], key=str)
    assert served[4:] == ["hostile", "hostile"]


def test_inside_a_workspace_priority_still_orders_claims(runtime: Runtime) -> None:
    enqueue(runtime, "test.create_team", {"name": "low"}, priority=0, team_id="t")
    enqueue(runtime, "test.create_team", {"name": "high"}, priority=5, team_id="t")
    assert claim_one(runtime).payload["name"] == "high"


def test_a_batch_claim_takes_one_job_per_workspace_before_a_second(runtime: Runtime) -> None:
    for i in range(10):
        enqueue(runtime, "test.create_team", {"name": f"h{i}"}, team_id="hostile")
    for team in ("a", "b", "c"):
        enqueue(runtime, "test.create_team", {"name": team}, team_id=team)
    with runtime.sessions.write() as session:
        jobs = queue.claim(
            session, lane="default", worker_id="w", clock=runtime.clock, lease_seconds=5, limit=4
        )
    assert sorted(job.team_id or "" for job in jobs) == ["a", "b", "c", "hostile"]


def test_every_waiting_workspace_is_served_once_before_any_twice(runtime: Runtime) -> None:
    """More waiting workspaces than one read of lines takes (32 on PostgreSQL): a claim reads
    lines in turn order and stops early, and still serves them all in turn."""
    teams = [f"team-{n:02d}" for n in range(40)]
    for round_ in range(2):
        for team in teams:
            enqueue(runtime, "test.create_team", {"name": f"{team}-{round_}"}, team_id=team)
    first = [claim_one(runtime).team_id for _ in teams]
    second = [claim_one(runtime).team_id for _ in teams]
    assert sorted(first, key=str) == teams  # each workspace once, in some order
    assert second == first  # then again, in the same turn order


def test_many_workers_share_turns_fairly(runtime: Runtime) -> None:
    """Concurrent claimers (SKIP LOCKED on PostgreSQL) still serve a lone job of a quiet
    workspace among the first claims, never after the busy workspace's backlog."""
    for i in range(60):
        enqueue(runtime, "test.create_team", {"name": f"h{i}"}, priority=2, team_id="hostile")
    enqueue(runtime, "test.create_team", {"name": "quiet"}, team_id="quiet")
    order: list[str | None] = []
    lock = threading.Lock()

    def claimer(worker_id: str) -> None:
        for _ in range(3):
            with runtime.sessions.write() as session:
                jobs = queue.claim(
                    session,
                    lane="default",
                    worker_id=worker_id,
                    clock=runtime.clock,
                    lease_seconds=5,
                )
                with lock:
                    order.extend(job.team_id for job in jobs)

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "quiet" in order[:5]
    assert len(order) == 12


def test_an_idle_lane_is_polled_without_taking_the_write_lock(runtime: Runtime) -> None:
    """While another connection holds the write lock (SQLite's only one), a poll of a lane with
    no job returns at once instead of waiting for it; a lane with a job still claims."""
    polled: list[int] = []
    if runtime.sessions.engine.dialect.name == "sqlite":
        blocker = sqlite3.connect(str(runtime.sessions.engine.url.database), isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            poll = threading.Thread(
                target=lambda: polled.append(Worker(runtime).run_once("clusters"))
            )
            poll.start()
            poll.join(10)  # waiting for the lock would take the busy timeout, far longer
            assert polled == [0]
        finally:
            blocker.rollback()
            blocker.close()
    with runtime.sessions.read() as session:
        assert not queue.lane_has_jobs(session, "default")
    enqueue(runtime, "test.create_team", {"name": "waiting"})
    with runtime.sessions.read() as session:
        assert queue.lane_has_jobs(session, "default")
        assert not queue.lane_has_jobs(session, "clusters")
    assert Worker(runtime).run_once("default") == 1
    assert team_names(runtime) == ["waiting"]
