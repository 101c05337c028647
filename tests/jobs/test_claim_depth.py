"""How deep a claim reads each workspace's line, and that the depth never changes what it takes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from herald.db.models.job import Job, JobTurn
from herald.jobs import claiming, queue
from herald.runtime import Runtime
from tests.jobs import handlers  # noqa: F401 - registers the test job kinds


def enqueue(runtime: Runtime, name: str, team: str | None, priority: int = 0) -> None:
    with runtime.sessions.write() as session:
        queue.enqueue(
            session,
            "test.create_team",
            {"name": name},
            clock=runtime.clock,
            team_id=team,
            priority=priority,
        )


def claim(runtime: Runtime, limit: int, *, finish: bool = False) -> list[queue.ClaimedJob]:
    """One claim of up to ``limit`` jobs in its own transaction (the jobs then finished)."""
    with runtime.sessions.write() as session:
        jobs = queue.claim(
            session,
            lane="default",
            worker_id="w",
            clock=runtime.clock,
            lease_seconds=30,
            limit=limit,
        )
        if finish:
            queue.finish(session, jobs)
    return jobs


def expected_claim(runtime: Runtime, limit: int) -> list[int]:
    """The first ``limit`` jobs in fair order, worked out from every queued job and the turns:
    no line cut short."""
    with runtime.sessions.read() as session:
        heads = list(
            session.execute(
                select(Job.id, Job.team_id, Job.priority, Job.run_at).where(
                    Job.status == "queued", Job.run_at <= runtime.clock.now()
                )
            )
        )
        turns = {t.team_key: t.served for t in session.scalars(select(JobTurn))}
    return claiming._in_fair_order(turns, heads)[:limit]


def test_a_claim_takes_the_jobs_a_full_read_of_every_line_would(runtime: Runtime) -> None:
    """Lines of 1 to 12 jobs, priorities, the system's line and batch claims of 1 to 5 jobs:
    lines shorter than a claim's share of its reach are read again to the full reach, and
    every claim takes exactly the jobs that the whole queue puts first."""
    lengths = {"big": 12, "mid": 3, "one": 1, "w1": 2, "w2": 2, "w3": 5, "w4": 2, None: 2}
    for team, length in lengths.items():
        for i in range(length):
            enqueue(runtime, f"{team}-{i}", team, priority=i % 3)
    claimed = 0
    for limit in [1, 3, 5, 2, 4] * 10:
        expected = expected_claim(runtime, limit)
        if not expected:
            break
        jobs = claim(runtime, limit, finish=True)
        assert [job.id for job in jobs] == expected
        claimed += len(jobs)
    assert claimed == sum(lengths.values())


def test_a_line_shorter_than_its_share_sends_the_claim_deeper_into_the_others(
    runtime: Runtime,
) -> None:
    """Two workspaces, one with a single job: a claim of 25 reads the long line past its share
    of the reach and takes 24 of its jobs besides the lone one."""
    for i in range(40):
        enqueue(runtime, f"big-{i}", "big")
    enqueue(runtime, "lone", "lone")
    expected = expected_claim(runtime, 25)
    jobs = claim(runtime, 25)
    assert [job.id for job in jobs] == expected
    assert sorted(job.team_id or "" for job in jobs) == ["big"] * 24 + ["lone"]


@pytest.fixture
def heads_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many heads each line read of a claim returned."""
    read: list[int] = []
    original = claiming._read_lines

    def counting(*args: Any, **kwargs: Any) -> Iterator[tuple[str, list[Any]]]:
        for key, line in original(*args, **kwargs):
            read.append(len(line))
            yield key, line

    monkeypatch.setattr(claiming, "_read_lines", counting)
    return read


def test_with_many_workspaces_waiting_a_claim_reads_each_line_to_its_share(
    runtime: Runtime, heads_read: list[int]
) -> None:
    """20 workspaces with 20 jobs each: a claim reads about as many heads as it can reach
    (its limit, plus PostgreSQL's margin for rows other claimers hold), not that many from
    every workspace."""
    workspaces = 20
    for w in range(workspaces):
        for i in range(20):
            enqueue(runtime, f"{w}-{i}", f"team-{w:02d}")
    postgres = runtime.sessions.engine.dialect.name == "postgresql"
    for limit in (1, 8):
        heads_read.clear()
        jobs = claim(runtime, limit)
        assert len(jobs) == limit
        assert len({job.team_id for job in jobs}) == limit  # one job per workspace
        reach = limit + (claiming._CONCURRENT_CLAIM_MARGIN if postgres else 0)
        assert sum(heads_read) < reach + workspaces
