"""Queueing dated jobs: the shared core of scheduled runs, run-now and backfills.

A request creates a parent run (its id is the ``task_id``), classifies each date by the stable
rules (:mod:`herald.monitors.rules`), inserts one dated run per queued date, points the date's
ledger entry at it and enqueues its durable job, all in the caller's transaction. The scheduler
queues many monitors' runs at once (:func:`queue_many`): a few set-based statements per batch.

"Never queued twice" is enforced by the database: a partial unique index allows one in-flight
dated run per (monitor, date), and the insert is ``ON CONFLICT DO NOTHING``, so two concurrent
requests for the same date queue it once and the loser reports it ``already_running``. Rows are
written in (monitor, date) order everywhere (here and in the job handler) so concurrent writers on
PostgreSQL take row locks in one order and cannot deadlock.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, Literal, cast

from sqlalchemy import Table, bindparam, select, text, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import new_uuid
from herald.db.dialect import insert_for
from herald.db.models.monitor import (
    IN_FLIGHT_WHERE,
    SCHEDULED_WHERE,
    Monitor,
    MonitorRun,
)
from herald.errors import MonitorDisabled
from herald.jobs.queue import enqueue
from herald.monitors.ledger_entries import LEDGER, mark_past_retention, point_ledger_at
from herald.monitors.rules import (
    DatePlan,
    DateState,
    RequestSummary,
    plan_dates,
    request_summary,
    task_status,
)

DATED_JOB_KIND = "monitors.dated_job"
# One durable job carries up to this many dated runs of one parent (a scheduled run's four go
# together): a fraction of the queue traffic of one job per date, while a backfill of 100 dates
# still spreads over 25 jobs for the workers to share. Each dated run keeps its own status,
# attempts and retries (see herald.monitors.tasks).
RUNS_PER_JOB = 4
ParentKind = Literal["scheduled", "manual", "backfill"]
# Run-now first (someone is waiting), then the schedule, then bulk backfills.
PRIORITY: dict[str, int] = {"manual": 2, "scheduled": 1, "backfill": 0}
RUNS = cast(Table, MonitorRun.__table__)
_CHUNK = 900


@dataclass(frozen=True, slots=True)
class QueuedDate:
    published_date: date
    run_id: str
    already_complete: bool
    latest_indexed_content: datetime | None


@dataclass(frozen=True, slots=True)
class SkippedDate:
    published_date: date
    already_complete: bool
    latest_indexed_content: datetime | None
    reason: str  # already_complete | already_running | past_retention


@dataclass(frozen=True, slots=True)
class QueuedTask:
    task_id: str
    monitor_id: str
    team_id: str
    kind: ParentKind
    status: str
    queued: list[QueuedDate]
    skipped: list[SkippedDate]
    summary: RequestSummary


@dataclass(frozen=True, slots=True)
class RunRequest:
    monitor: Monitor
    dates: Sequence[date]
    kind: ParentKind
    skip_complete: bool = True
    slot_at: datetime | None = None
    retained_from: date | None = None  # earlier dates are past retention (never queued)


def date_states(
    session: Session, pairs: set[tuple[str, date]]
) -> dict[tuple[str, date], DateState]:
    """What the ledger knows of each (monitor, date): complete, in flight, high-water mark."""
    by_monitor: dict[str, list[date]] = defaultdict(list)
    for monitor_id, day in pairs:
        by_monitor[monitor_id].append(day)
    all_dates = sorted({day for _, day in pairs})
    monitor_ids = sorted(by_monitor)
    states: dict[tuple[str, date], DateState] = {}
    for start in range(0, len(monitor_ids), 400):
        for day_start in range(0, len(all_dates), 400):
            rows = session.execute(
                select(
                    LEDGER.c.monitor_id,
                    LEDGER.c.published_date,
                    LEDGER.c.status,
                    LEDGER.c.completed_at,
                    LEDGER.c.latest_indexed_content_at,
                ).where(
                    LEDGER.c.monitor_id.in_(monitor_ids[start : start + 400]),
                    LEDGER.c.published_date.in_(all_dates[day_start : day_start + 400]),
                )
            )
            for row in rows:
                states[(row.monitor_id, row.published_date)] = DateState(
                    complete=row.completed_at is not None,
                    in_flight=row.status == "running",
                    latest_indexed_content=row.latest_indexed_content_at,
                )
    return states


def queue_dates(
    session: Session,
    monitor: Monitor,
    dates: Sequence[date],
    *,
    kind: ParentKind,
    skip_complete: bool,
    clock: Clock,
    slot_at: datetime | None = None,
    retained_from: date | None = None,
) -> QueuedTask | None:
    """Create the parent run and queue the dates' jobs; None if a scheduled slot already ran."""
    request = RunRequest(monitor, dates, kind, skip_complete, slot_at, retained_from)
    return queue_many(session, [request], clock=clock)[0]


def queue_many(
    session: Session, requests: Sequence[RunRequest], *, clock: Clock
) -> list[QueuedTask | None]:
    """:func:`queue_dates` for many requests in a few statements (the scheduler's batches)."""
    if not requests:
        return []
    for request in requests:
        if request.monitor.status != "active":
            raise MonitorDisabled("the monitor is disabled; it never runs again")
    now = clock.now()
    task_ids = [new_uuid() for _ in requests]
    _insert_parents(session, requests, task_ids, now)
    if any(r.kind == "scheduled" for r in requests):
        # One scheduled run per (monitor, slot), whatever several schedulers do.
        created: set[str] = set()
        for chunk in range(0, len(task_ids), _CHUNK):
            created.update(
                session.scalars(
                    select(RUNS.c.id).where(RUNS.c.id.in_(task_ids[chunk : chunk + _CHUNK]))
                )
            )
    else:
        created = set(task_ids)
    live = [(r, t) for r, t in zip(requests, task_ids, strict=True) if t in created]

    states = date_states(session, {(r.monitor.id, d) for r, _ in live for d in r.dates})
    plans: dict[str, list[DatePlan]] = {}
    wanted: list[tuple[RunRequest, str, DatePlan, str]] = []
    past: list[tuple[RunRequest, str, DatePlan]] = []
    for request, task_id in live:
        monitor_states = {
            d: states[(request.monitor.id, d)]
            for d in request.dates
            if (request.monitor.id, d) in states
        }
        plans[task_id] = plan_dates(
            request.dates,
            monitor_states,
            skip_complete=request.skip_complete,
            retained_from=request.retained_from,
        )
        wanted.extend((request, task_id, p, new_uuid()) for p in plans[task_id] if p.queued)
        past.extend((request, task_id, p) for p in plans[task_id] if p.outcome == "past_retention")
    wanted.sort(key=lambda w: (w[0].monitor.id, w[2].published_date))
    inserted = _insert_dated_runs(session, wanted, now)
    queued = [w for w in wanted if w[3] in inserted]
    point_ledger_at(session, queued, now)
    mark_past_retention(session, past, now)
    by_task: dict[str, list[str]] = defaultdict(list)
    kinds: dict[str, RunRequest] = {}
    for request, task_id, _plan, run_id in queued:
        by_task[task_id].append(run_id)
        kinds[task_id] = request
    for task_id, task_run_ids in by_task.items():
        for start in range(0, len(task_run_ids), RUNS_PER_JOB):
            enqueue_dated_job(
                session,
                task_run_ids[start : start + RUNS_PER_JOB],
                clock=clock,
                priority=PRIORITY[kinds[task_id].kind],
                team_id=kinds[task_id].monitor.team_id,
            )

    run_ids = {(t, p.published_date): r for _, t, p, r in queued}
    results: dict[str, QueuedTask] = {}
    parent_updates: list[dict[str, Any]] = []
    for request, task_id in live:
        final = [
            p
            if not p.queued or (task_id, p.published_date) in run_ids
            # a concurrent request queued it first
            else replace(p, outcome="already_running")
            for p in plans[task_id]
        ]
        summary = request_summary(final)
        status = task_status(["queued"] * summary.queued)
        skipped = [
            SkippedDate(p.published_date, p.already_complete, p.latest_indexed_content, p.outcome)
            for p in final
            if not p.queued
        ]
        parent_updates.append(
            {
                "b_id": task_id,
                "b_status": status,
                "b_summary": {
                    **summary.to_json(),
                    "skip_complete": request.skip_complete,
                    "skipped": [
                        {"published_date": s.published_date.isoformat(), "reason": s.reason}
                        for s in skipped
                    ],
                },
                # a task with nothing to wait for has already finished
                "b_done": None if status == "queued" else now,
            }
        )
        results[task_id] = QueuedTask(
            task_id=task_id,
            monitor_id=request.monitor.id,
            team_id=request.monitor.team_id,
            kind=request.kind,
            status=status,
            queued=[
                QueuedDate(
                    p.published_date,
                    run_ids[(task_id, p.published_date)],
                    p.already_complete,
                    p.latest_indexed_content,
                )
                for p in final
                if p.queued
            ],
            skipped=skipped,
            summary=summary,
        )
    if parent_updates:
        session.execute(
            update(RUNS)
            .where(RUNS.c.id == bindparam("b_id"))
            .values(
                status=bindparam("b_status"),
                summary=bindparam("b_summary", type_=RUNS.c.summary.type),
                started_at=bindparam("b_done"),
                finished_at=bindparam("b_done"),
            ),
            parent_updates,
        )
    return [results.get(task_id) for task_id in task_ids]


def enqueue_dated_job(
    session: Session,
    run_ids: Sequence[str],
    *,
    clock: Clock,
    priority: int,
    team_id: str,
    run_at: datetime | None = None,
) -> None:
    """Enqueue the durable job that runs these dated runs, in the caller's transaction.

    No unique key: the dated run rows are the identity (one in flight per monitor and date), and
    each job is enqueued exactly once, with its runs, in the same transaction.
    """
    enqueue(
        session,
        DATED_JOB_KIND,
        {"run_ids": list(run_ids)},
        clock=clock,
        priority=priority,
        team_id=team_id,
        run_at=run_at,
    )


def _insert_parents(
    session: Session, requests: Sequence[RunRequest], task_ids: list[str], now: datetime
) -> None:
    rows = [
        {
            "id": task_id,
            "monitor_id": r.monitor.id,
            "team_id": r.monitor.team_id,
            "kind": r.kind,
            "status": "queued",
            "requested_count": len(r.dates),
            "slot_at": r.slot_at,
            "created_at": now,
            "attempts": 0,
        }
        for r, task_id in zip(requests, task_ids, strict=True)
    ]
    statement = insert_for(session, RUNS).on_conflict_do_nothing(
        index_elements=["monitor_id", "slot_at"], index_where=text(SCHEDULED_WHERE)
    )
    session.execute(statement, rows)


def _insert_dated_runs(
    session: Session, wanted: list[tuple[RunRequest, str, DatePlan, str]], now: datetime
) -> set[str]:
    """Insert the dated runs that are not in flight already; the ids that went in."""
    if not wanted:
        return set()
    rows = [
        {
            "id": run_id,
            "monitor_id": request.monitor.id,
            "team_id": request.monitor.team_id,
            "kind": "dated",
            "parent_run_id": task_id,
            "published_date": plan.published_date,
            "status": "queued",
            "requested_count": 0,
            "already_complete": plan.already_complete,
            "latest_indexed_content_at": plan.latest_indexed_content,
            "created_at": now,
            "attempts": 0,
        }
        for request, task_id, plan, run_id in wanted
    ]
    statement = insert_for(session, RUNS).on_conflict_do_nothing(
        index_elements=["monitor_id", "published_date"], index_where=text(IN_FLIGHT_WHERE)
    )
    session.execute(statement, rows)
    ids = [row["id"] for row in rows]
    inserted: set[str] = set()
    for chunk in range(0, len(ids), _CHUNK):
        inserted.update(
            session.scalars(select(RUNS.c.id).where(RUNS.c.id.in_(ids[chunk : chunk + _CHUNK])))
        )
    return inserted
