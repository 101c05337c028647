"""Concurrent batch claims on PostgreSQL and the workspaces' turns they both write."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest
from sqlalchemy import select

from herald.db.models.job import JobTurn
from herald.jobs import queue
from herald.runtime import Runtime
from tests.jobs import handlers  # noqa: F401 - registers the test job kinds

WORKSPACES = ("w0", "w1", "w2", "w3")


def claim(session: object, worker_id: str, runtime: Runtime, limit: int) -> list[queue.ClaimedJob]:
    return queue.claim(
        session,  # type: ignore[arg-type]
        lane="default",
        worker_id=worker_id,
        clock=runtime.clock,
        lease_seconds=30,
        limit=limit,
        kind="test.batch",
    )


def served_turns(runtime: Runtime) -> dict[str, int]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(JobTurn.team_key, JobTurn.served).where(JobTurn.lane == "default")
        )
        return {key: int(served) for key, served in rows}


@pytest.mark.parametrize("first_turns", [False, True], ids=["turns-exist", "first-turns"])
def test_two_batch_claims_serving_each_others_workspaces_do_not_deadlock(
    runtime: Runtime, backend: str, first_turns: bool
) -> None:
    """A batch claim claims twice in one transaction (the first job, then the rest of its
    batch). Two of them, each first serving a workspace the other then serves too, used to wait
    for each other's turn rows until PostgreSQL broke the deadlock by failing one claim: turns
    both wrote, or the first turns of workspaces never served before, both inserted."""
    if backend != "postgres":
        pytest.skip("SQLite runs one write transaction at a time: claims cannot interleave")
    with runtime.sessions.write() as session:
        for team in WORKSPACES:
            for i in range(6):
                queue.enqueue(
                    session,
                    "test.batch",
                    {"name": f"{team}-{i}"},
                    clock=runtime.clock,
                    team_id=team,
                )
    if not first_turns:
        with runtime.sessions.write() as session:  # every workspace served once: a turn each
            queue.finish(session, claim(session, "seed", runtime, len(WORKSPACES)))
    seeded = served_turns(runtime)
    errors: list[BaseException] = []
    with ExitStack() as stack:
        a = stack.enter_context(runtime.sessions.write())
        b = stack.enter_context(runtime.sessions.write())
        [first_a] = claim(a, "a", runtime, 1)
        [first_b] = claim(b, "b", runtime, 1)
        assert first_a.team_id != first_b.team_id

        def rest_of_a() -> None:
            try:
                claim(a, "a", runtime, 4)
            except BaseException as exc:
                errors.append(exc)
                a.rollback()  # the locks of a failed claim go at once: b can go on

        thread = threading.Thread(target=rest_of_a)
        thread.start()
        thread.join(0.5)  # a's second claim reaches b's workspace first
        try:
            claim(b, "b", runtime, 4)
        except BaseException as exc:
            errors.append(exc)
            b.rollback()
        thread.join(10)
        assert not errors, errors  # (leaving the block rolls both claims back)
    turns = served_turns(runtime)
    assert sorted(turns) == list(WORKSPACES)
    # Every workspace was served again after the seed, and its turn says so.
    assert min(turns.values()) > max(seeded.values(), default=0)
