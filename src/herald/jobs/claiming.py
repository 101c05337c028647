"""Claiming jobs: which due jobs a worker leases next, fairly between workspaces.

PostgreSQL claims with ``FOR UPDATE SKIP LOCKED`` so many workers on many machines share the
work; SQLite serialises claims through its single writer (write units of work BEGIN IMMEDIATE).

Claims are fair between workspaces: each workspace (jobs without one form one more, the system's)
takes turns. A claim serves the workspace whose turn is oldest (``job_turns``), and inside a
workspace its jobs go by priority, then due time. So one workspace's thousand run-nows or a long
backfill wait behind every other workspace's next job instead of in front of it, on SQLite and on
PostgreSQL with many workers alike.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    CTE,
    BigInteger,
    ColumnElement,
    Executable,
    String,
    and_,
    bindparam,
    exists,
    func,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, aliased

from herald.core.clock import Clock
from herald.db.dialect import insert_for
from herald.db.models.job import Job, JobTurn
from herald.jobs.claimed import ClaimedJob
from herald.jobs.registry import kinds_in_lane


def claim(
    session: Session,
    *,
    lane: str,
    worker_id: str,
    clock: Clock,
    lease_seconds: float,
    limit: int = 1,
    kind: str | None = None,
) -> list[ClaimedJob]:
    """Lease up to ``limit`` due jobs of ``lane`` (optionally of one kind) to ``worker_id``.

    Only kinds this process has a handler for are claimed: during a rolling deploy an older
    process leaves a newer kind's jobs queued for the newer processes (never claiming and
    failing them over and over); :func:`herald.jobs.queue.fail_unknown_kinds` bounds how long
    they may wait.

    The cost does not grow with the backlog: the workspaces with queued jobs are found by a skip
    scan of an index, and each workspace's line is read from its head only as far as a claim
    can reach (``limit`` jobs, plus a margin on PostgreSQL for rows other claimers hold), so a
    workspace's hundred thousand queued jobs cost a claim no more than its first few. With
    several workspaces waiting, each line is read only to its share of that reach (one head
    each when as many workspaces wait as the claim can reach), so the heads a claim reads grow
    with its reach, not with its square.
    """
    now = clock.now()
    runnable = (kind,) if kind is not None else tuple(sorted(k.name for k in kinds_in_lane(lane)))
    if not runnable:
        return []
    postgres = session.get_bind().dialect.name == "postgresql"
    reach = limit + (_CONCURRENT_CLAIM_MARGIN if postgres else 0)
    plan = _claim_plan(postgres, lane, kind, runnable, reach)
    connection = session.connection()  # Core execution: a claim runs several small statements
    at = {"now": now}
    # Workspaces with queued jobs (the system's, None, always looked at), in turn order.
    turns: dict[str, int] = {"": connection.execute(plan.system_turn).scalar() or 0}
    for team_id, served in connection.execute(plan.teams):
        if team_id is not None:
            turns[team_id] = served or 0
    order = sorted(turns, key=lambda key: (turns[key], key))  # ties: by workspace id
    heads: list[Any] = list(connection.execute(plan.expired, at))  # attempts whose worker died
    # Each line is read only as deep as its share of ``reach``: the heads at places before that
    # depth sort before every deeper one, so once they number ``reach`` the deeper ones cannot
    # be among the first ``reach``; if they fall short, the lines cut at that depth are read
    # again to ``reach``, as deep as a claim can go.
    depth = -(-reach // max(1, sum(1 for key in order if key)))
    lines: dict[str, list[Any]] = {}  # workspaces whose line has a due job: their heads
    step = _LINES_PER_READ if postgres else 1  # SQLite reads a line per statement anyway
    i = 0
    while i < len(order) and len(lines) < reach:
        # Lines in turn order, until ``reach`` of them have a due job: every first job goes
        # before any second, so a workspace after those cannot be among the first ``reach``.
        batch, i = order[i : i + step], i + step
        for key, line in _read_lines(connection, plan, batch, {**at, "depth": depth}, postgres):
            if line:
                lines[key] = line
    cut = [key for key, line in lines.items() if len(line) == depth]
    if depth < reach and cut and sum(len(line) for line in lines.values()) < reach:
        lines.update(_read_lines(connection, plan, cut, {**at, "depth": reach}, postgres))
    for line in lines.values():
        heads.extend(line)
    if not heads:
        return []
    ids = _in_fair_order(turns, heads)[:reach]
    rows = connection.execute(
        plan.take,
        {
            **at,
            "ids": ids if postgres else ids[:limit],
            "order": ids,
            "worker_id": worker_id,
            "lease_expires_at": now + timedelta(seconds=lease_seconds),
        },
    ).all()
    position = {job_id: place for place, job_id in enumerate(ids)}
    rows = sorted(rows, key=lambda r: position[r.id])
    _take_turns(session, lane, [r.team_id or "" for r in rows])
    return [
        ClaimedJob(
            id=r.id,
            kind=r.kind,
            payload=r.payload,
            attempts=r.attempts,
            max_attempts=r.max_attempts,
            team_id=r.team_id,
            unique_key=r.unique_key,
            worker_id=worker_id,
            created_at=r.created_at,
        )
        for r in rows
    ]


# Concurrent PostgreSQL claimers read the same heads; each locks the first rows no other holds
# (SKIP LOCKED), so a claim reads this many more heads than it takes.
_CONCURRENT_CLAIM_MARGIN = 16


@dataclass(frozen=True, slots=True)
class _ClaimPlan:
    """A claim's statements, built once per lane and kinds (their compiled forms are cached)."""

    system_turn: Executable  # the system's turn
    teams: Executable  # workspaces with queued jobs and their turns
    system_line: Executable  # the head of the system's line
    team_line: Executable  # the head of one workspace's line (SQLite)
    team_lines: Executable | None  # the heads of several workspaces' lines (PostgreSQL)
    expired: Executable  # attempts whose worker died
    take: Executable  # lease the chosen heads


# Workspaces whose lines one PostgreSQL statement reads.
_LINES_PER_READ = 32


def lane_has_jobs(session: Session, lane: str) -> bool:
    """Whether ``lane`` holds a queued or running job at all: two probes of the claim index.

    Workers ask this in a read transaction before they claim, so an idle lane's poll never takes
    SQLite's single write lock (which every other writer would wait for, more so if the polling
    process is paused while it holds it). A superset of what a claim can take: when it says yes,
    the claim decides."""
    found = exists().where(Job.lane == lane, Job.status.in_(("queued", "running")))
    return bool(session.execute(select(found)).scalar())


@functools.lru_cache(maxsize=64)
def _claim_plan(
    postgres: bool, lane: str, kind: str | None, runnable: tuple[str, ...], reach: int
) -> _ClaimPlan:
    now = bindparam("now", type_=Job.run_at.type)
    scope = [Job.kind == kind] if kind is not None else [Job.lane == lane, Job.kind.in_(runnable)]
    waiting = _waiting_and_due(now)
    line = (
        select(Job.id, Job.team_id, Job.priority, Job.run_at)
        .where(*scope, waiting)
        .order_by(Job.priority.desc(), Job.run_at, Job.id)
        .limit(bindparam("depth"))
    )
    system_line = line.where(Job.team_id.is_(None))
    teams = _teams_with_queued_jobs(scope)
    turn = and_(JobTurn.lane == lane, JobTurn.team_key == teams.c.team_id)
    expired = select(Job.id, Job.team_id, Job.priority, Job.run_at).where(
        *scope, Job.status == "running", _lease_expired(now)
    )
    team_lines = None
    if postgres:
        wanted = (
            func.unnest(bindparam("teams", type_=ARRAY(String())))
            .table_valued("team_id")
            .render_derived(name="wanted")
        )
        lines = line.where(Job.team_id == wanted.c.team_id).lateral("line")
        team_lines = select(lines).select_from(wanted).join(lines, true())
    # Again on the locked row itself: a row another claimer changed since the heads were read is
    # re-checked by PostgreSQL before it is locked, and skipped if no longer due. Rows are taken
    # in claim order (SKIP LOCKED passes over those other claimers hold); SQLite has one writer,
    # so the first ``limit`` heads are taken as they are.
    chosen = select(Job.id).where(
        Job.id.in_(bindparam("ids", expanding=True)),
        or_(waiting, and_(Job.status == "running", _lease_expired(now))),
    )
    if postgres:
        order = bindparam("order", type_=ARRAY(BigInteger()))
        chosen = (
            chosen.order_by(func.array_position(order, Job.id))
            .limit(reach - _CONCURRENT_CLAIM_MARGIN)
            .with_for_update(skip_locked=True, of=Job)
        )
    take = (
        update(Job)
        .where(Job.id.in_(chosen.scalar_subquery()))
        .values(
            status="running",
            worker_id=bindparam("worker_id"),
            lease_expires_at=bindparam("lease_expires_at"),
            attempts=Job.attempts + 1,
            updated_at=now,
        )
        .returning(
            Job.id,
            Job.kind,
            Job.payload,
            Job.attempts,
            Job.max_attempts,
            Job.team_id,
            Job.unique_key,
            Job.created_at,
        )
    )
    return _ClaimPlan(
        system_turn=select(JobTurn.served).where(JobTurn.lane == lane, JobTurn.team_key == ""),
        teams=select(teams.c.team_id, JobTurn.served).outerjoin(JobTurn, turn),
        system_line=system_line,
        team_line=line.where(Job.team_id == bindparam("team_id")),
        team_lines=team_lines,
        expired=expired,
        take=take,
    )


def _read_lines(
    connection: Connection,
    plan: _ClaimPlan,
    keys: Sequence[str],
    at: dict[str, Any],
    postgres: bool,
) -> Iterator[tuple[str, list[Any]]]:
    """The heads of these workspaces' lines ("" the system's), workspace by workspace."""
    teams = [key for key in keys if key]
    if "" in keys:
        yield "", list(connection.execute(plan.system_line, at))
    if postgres and teams and plan.team_lines is not None:
        lines: dict[str, list[Any]] = {key: [] for key in teams}
        for head in connection.execute(plan.team_lines, {**at, "teams": teams}):
            lines[head.team_id].append(head)
        yield from lines.items()
        return
    for key in teams:
        yield key, list(connection.execute(plan.team_line, {**at, "team_id": key}))


def _waiting_and_due(now: ColumnElement[datetime]) -> ColumnElement[bool]:
    """Queued, due, and no job with its unique key running (a key's runs never overlap)."""
    other = aliased(Job)
    key_running = exists().where(
        other.unique_key == Job.unique_key, other.status == "running", other.id != Job.id
    )
    return and_(
        Job.status == "queued",
        Job.run_at <= now,
        or_(Job.unique_key.is_(None), ~key_running),
    )


def _lease_expired(now: ColumnElement[datetime]) -> ColumnElement[bool]:
    return and_(Job.lease_expires_at < now, Job.attempts < Job.max_attempts)


def _teams_with_queued_jobs(scope: Sequence[ColumnElement[bool]]) -> CTE:
    """Workspaces with at least one queued job in ``scope``, by a skip scan: one index probe per
    workspace (the next ``team_id`` after the previous one), not a read of every queued job.
    A recursive query on both databases; its last row is NULL."""
    first = (
        select(Job.team_id)
        .where(*scope, Job.status == "queued", Job.team_id.is_not(None))
        .order_by(Job.team_id)
        .limit(1)
        .scalar_subquery()
    )
    teams = select(first.label("team_id")).cte("teams", recursive=True)
    following = (
        select(Job.team_id)
        .where(*scope, Job.status == "queued", Job.team_id > teams.c.team_id)
        .order_by(Job.team_id)
        .limit(1)
        .scalar_subquery()
    )
    return teams.union_all(select(following.label("team_id")).where(teams.c.team_id.is_not(None)))


def _in_fair_order(turns: dict[str, int], heads: Sequence[Any]) -> list[int]:
    """Job ids in claim order: every workspace's first job before any second, and among firsts
    the workspace served longest ago (workspaces never served, or served at once by concurrent
    claimers, by id); inside a workspace by priority, then due time."""
    lines: dict[str, list[Any]] = {}
    for head in heads:
        lines.setdefault(head.team_id or "", []).append(head)
    ranked: list[tuple[tuple[Any, ...], int]] = []
    for team_key, line in lines.items():
        line.sort(key=lambda h: (-h.priority, h.run_at, h.id))
        served = turns.get(team_key, 0)
        ranked.extend(
            ((place, served, team_key, -h.priority, h.run_at, h.id), h.id)
            for place, h in enumerate(line)
        )
    ranked.sort()
    return [job_id for _, job_id in ranked]


def _take_turns(session: Session, lane: str, team_keys: Sequence[str]) -> None:
    """Mark these workspaces as just served (in claim order), so the next claim serves others.

    Concurrent claimers may hand out the same turn number; that only makes a tie, never a
    lost or duplicated job (the jobs themselves are locked). On PostgreSQL a claimer never
    waits for a turn another claimer holds: that one has just served the workspace too and
    writes its turn, so this one leaves it. Waiting would deadlock two batch claims (each
    claims twice in one transaction) that served each other's workspaces in opposite orders.
    """
    served = list(dict.fromkeys(team_keys))
    if not served:
        return
    connection = session.connection()  # Core execution, as the claim's other statements
    latest = connection.execute(
        select(func.coalesce(func.max(JobTurn.served), 0)).where(JobTurn.lane == lane)
    ).scalar_one()
    numbers = [int(latest) + i for i in range(1, len(served) + 1)]
    if connection.dialect.name == "postgresql":
        connection.execute(
            _TAKE_FREE_TURNS,
            {
                "lane": lane,
                "keys": served,
                "served": numbers,
                "lock_class": _FIRST_TURN_LOCK_CLASS,
            },
        )
        return
    upsert = insert_for(session, JobTurn)
    connection.execute(
        upsert.on_conflict_do_update(
            index_elements=["lane", "team_key"], set_={"served": upsert.excluded.served}
        ),
        [
            {"lane": lane, "team_key": key, "served": number}
            for key, number in zip(served, numbers, strict=True)
        ],
    )


# The turns no other transaction holds are updated (SKIP LOCKED), the workspaces without a turn
# yet get one; a turn another claimer holds, or is inserting, is left to it.
_TAKE_FREE_TURNS = text(
    """
    WITH wanted AS (
        SELECT * FROM unnest(CAST(:keys AS varchar[]), CAST(:served AS bigint[]))
            AS w(team_key, served)
    ), free AS (
        SELECT t.team_key FROM job_turns AS t
        WHERE t.lane = :lane AND t.team_key = ANY(CAST(:keys AS varchar[]))
        ORDER BY t.team_key
        FOR UPDATE SKIP LOCKED
    ), updated AS (
        UPDATE job_turns AS t SET served = w.served
        FROM wanted AS w
        WHERE t.lane = :lane AND t.team_key = w.team_key
            AND t.team_key IN (SELECT team_key FROM free)
    )
    INSERT INTO job_turns (lane, team_key, served)
    SELECT :lane, w.team_key, w.served FROM wanted AS w
    WHERE NOT EXISTS (
        SELECT 1 FROM job_turns AS t WHERE t.lane = :lane AND t.team_key = w.team_key
    ) AND pg_try_advisory_xact_lock(:lock_class, hashtext(:lane || ' ' || w.team_key))
    ORDER BY w.team_key
    ON CONFLICT (lane, team_key) DO NOTHING
    """
)
# A workspace's first turn is inserted under a transaction-level advisory lock of this class
# (and a hash of the lane and workspace), taken without waiting: a claimer never waits for
# another's uncommitted first turn of the same workspace, which would deadlock as above.
_FIRST_TURN_LOCK_CLASS = 20_531
