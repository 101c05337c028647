"""How dated runs end other than by success, and how their parent tasks follow.

A run is skipped (its monitor was disabled), retried after the policy's delay with its origin's
priority, or failed for good (with a ``monitor.run.failed`` event); the ledger entries that still
point at a run follow its status, and a parent task's status is derived from its children's
(with ``monitor.backfill.completed`` when it ends). Callers lock parents first
(:func:`lock_parents`), then dated runs and ledger rows by (monitor, date), as
:mod:`herald.monitors.queueing` does, so concurrent writers cannot deadlock.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, select, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.models.monitor import MonitorLedgerEntry, MonitorRun
from herald.jobs.registry import RetryPolicy
from herald.monitors import events
from herald.monitors.queueing import PRIORITY, enqueue_dated_job
from herald.monitors.rules import FINISHED, DatedJobStatus, task_status, task_summary

RUNS = cast(Table, MonitorRun.__table__)
LEDGER = cast(Table, MonitorLedgerEntry.__table__)


def lock_parents(session: Session, parent_ids: Sequence[str | None]) -> None:
    """Row-lock parent runs in id order (PostgreSQL; SQLite has one writer anyway)."""
    ids = sorted({p for p in parent_ids if p is not None})
    if ids and session.get_bind().dialect.name == "postgresql":
        session.execute(
            select(RUNS.c.id).where(RUNS.c.id.in_(ids)).order_by(RUNS.c.id).with_for_update()
        ).all()


def update_ledger_for_runs(
    session: Session,
    runs: Sequence[tuple[str, date, str]],
    *,
    now: datetime,
    status: str,
    run_at: datetime | None = None,
    error: str | None = None,
) -> None:
    """Set the status of ledger entries that still point at these runs."""
    if not runs:
        return
    values: dict[str, Any] = {"status": status, "updated_at": now}
    if run_at is not None:
        values["run_at"] = run_at
    if status in FINISHED:
        values["error_message"] = error
    session.execute(
        update(LEDGER)
        .where(
            and_(
                LEDGER.c.monitor_id == bindparam("b_monitor"),
                LEDGER.c.published_date == bindparam("b_date"),
                LEDGER.c.run_id == bindparam("b_run"),
            )
        )
        .values(**values),
        [{"b_monitor": m, "b_date": d, "b_run": r} for m, d, r in sorted(runs)],
    )


def end_runs(
    session: Session,
    runs: Sequence[tuple[str, str, date]],
    status: str,
    now: datetime,
    *,
    error: str,
) -> None:
    message = error[:2000]
    session.execute(
        update(RUNS)
        .where(RUNS.c.id == bindparam("b_id"))
        .values(status=status, finished_at=now, error_message=message),
        [{"b_id": run_id} for run_id, _, _ in runs],
    )
    update_ledger_for_runs(
        session, [(m, d, r) for r, m, d in runs], now=now, status=status, error=message
    )


def refresh_parents(session: Session, parent_ids: Sequence[str | None], *, clock: Clock) -> None:
    """Derive each parent's status from its children; emit completion when one ends.

    Callers hold the parents' row locks, so two children finishing at once see each other.
    """
    ids = sorted({p for p in parent_ids if p is not None})
    if not ids:
        return
    parents = session.execute(
        select(
            RUNS.c.id,
            RUNS.c.kind,
            RUNS.c.status,
            RUNS.c.started_at,
            RUNS.c.requested_count,
            RUNS.c.monitor_id,
            RUNS.c.team_id,
        ).where(RUNS.c.id.in_(ids))
    ).all()
    children: dict[str, list[DatedJobStatus]] = defaultdict(list)
    for parent_id, status in session.execute(
        select(RUNS.c.parent_run_id, RUNS.c.status).where(RUNS.c.parent_run_id.in_(ids))
    ):
        children[parent_id].append(cast(DatedJobStatus, status))
    now = clock.now()
    changes: list[dict[str, Any]] = []
    ended = []
    for parent in parents:
        status = task_status(children[parent.id])
        if status == parent.status:
            continue
        changes.append(
            {
                "b_id": parent.id,
                "b_status": status,
                "b_started": parent.started_at or (now if status != "queued" else None),
                "b_finished": now if status in FINISHED else None,
            }
        )
        if status in FINISHED:
            ended.append((parent, status))
    if changes:
        session.execute(
            update(RUNS)
            .where(RUNS.c.id == bindparam("b_id"))
            .values(
                status=bindparam("b_status"),
                started_at=bindparam("b_started"),
                finished_at=bindparam("b_finished"),
            ),
            changes,
        )
    for parent, status in ended:
        events.task_completed(
            session,
            team_id=parent.team_id,
            monitor_id=parent.monitor_id,
            task_id=parent.id,
            kind=parent.kind,
            status=status,
            summary=task_summary(parent.requested_count, children[parent.id]),
            clock=clock,
        )


def give_up_run(session: Session, run_id: str, error: str, *, clock: Clock) -> bool:
    """The run's job failed for good: record it, update ledger and parent, emit the event."""
    parent_id = session.scalar(select(RUNS.c.parent_run_id).where(RUNS.c.id == run_id))
    lock_parents(session, [parent_id])
    run = session.execute(select(RUNS).where(RUNS.c.id == run_id)).one_or_none()
    if run is None or run.status in FINISHED:
        return False
    now = clock.now()
    end_runs(session, [(run.id, run.monitor_id, run.published_date)], "failed", now, error=error)
    events.run_failed(
        session,
        team_id=run.team_id,
        monitor_id=run.monitor_id,
        run_id=run.id,
        task_id=run.parent_run_id,
        published_date=run.published_date,
        error_message=error[:2000],
        attempts=run.attempts,
        clock=clock,
    )
    refresh_parents(session, [run.parent_run_id], clock=clock)
    return True


def retry_or_give_up(
    session: Session, failures: Mapping[str, str], *, clock: Clock, policy: RetryPolicy
) -> None:
    """Runs whose search failed: queue them again after the policy's delay, or fail them.

    A run waiting for its retry stays ``running`` (its date stays ``already_running``) with the
    last error in ``error_message``; its attempts were counted when it started. The retry keeps
    the priority of the run's origin (its parent's kind), as its first job had.
    """
    if not failures:
        return
    parent = RUNS.alias("parent")
    rows = session.execute(
        select(RUNS.c.id, RUNS.c.attempts, RUNS.c.team_id, parent.c.kind.label("origin"))
        .outerjoin(parent, parent.c.id == RUNS.c.parent_run_id)
        .where(RUNS.c.id.in_(sorted(failures)), RUNS.c.status == "running")
    ).all()
    now = clock.now()
    for run in rows:
        error = failures[run.id][:2000]
        delay = policy.delay_after(run.attempts)
        if delay is None:
            give_up_run(session, run.id, error, clock=clock)
            continue
        session.execute(update(RUNS).where(RUNS.c.id == run.id).values(error_message=error))
        enqueue_dated_job(
            session,
            [run.id],
            clock=clock,
            # as urgent as its first job: a scheduled run's retry still goes before backfills
            priority=PRIORITY.get(run.origin, PRIORITY["backfill"]),
            team_id=run.team_id,
            run_at=now + timedelta(seconds=delay),
        )
