"""Run-now and backfill requests: validate, queue, and report (in the caller's transaction)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from herald.content.retention import retained_from
from herald.core.clock import Clock
from herald.db.models.monitor import MonitorRun
from herald.errors import FieldIssue, InvalidRequest, MonitorDisabled, RateLimited
from herald.monitors import events
from herald.monitors.queueing import QueuedTask, queue_dates
from herald.monitors.rules import run_dates, task_summary, validate_backfill_dates
from herald.monitors.service import get_monitor


def check_waiting_quota(session: Session, team_id: str, adding: int, max_queued: int) -> None:
    """At most ``max_queued`` dated jobs of run-nows and backfills wait per workspace (0: no cap),
    so one workspace cannot park an unbounded backlog on the shared queue."""
    if max_queued <= 0:
        return
    parent = aliased(MonitorRun)
    waiting = session.scalar(
        select(func.count())
        .select_from(MonitorRun)
        .join(parent, parent.id == MonitorRun.parent_run_id)
        .where(
            MonitorRun.team_id == team_id,
            MonitorRun.kind == "dated",
            MonitorRun.status.in_(("queued", "running")),
            parent.kind.in_(("manual", "backfill")),
        )
    )
    if (waiting or 0) + adding > max_queued:
        raise RateLimited(
            f"this workspace has {waiting} dated jobs of run-nows and backfills waiting; at most "
            f"{max_queued} may wait at once, so these {adding} cannot be queued now",
            retry_after_seconds=60,
        )


def run_now(
    session: Session, *, team_id: str, monitor_id: str, clock: Clock, max_queued: int = 0
) -> QueuedTask:
    """Queue the same work as a scheduled run: today (UTC) and the trailing three days."""
    monitor = get_monitor(session, team_id=team_id, monitor_id=monitor_id)
    if monitor.status != "active":
        raise MonitorDisabled("the monitor is disabled; it cannot run")
    check_waiting_quota(session, team_id, len(run_dates(clock.now())), max_queued)
    task = queue_dates(
        session, monitor, run_dates(clock.now()), kind="manual", skip_complete=True, clock=clock
    )
    assert task is not None  # only scheduled runs can lose a slot race
    _completed_at_once(session, task, clock=clock)
    return task


def request_backfill(
    session: Session,
    *,
    team_id: str,
    monitor_id: str,
    dates: object,
    skip_complete: object = True,
    clock: Clock,
    max_queued: int = 0,
    retention_days: int = 0,
) -> QueuedTask:
    """Queue a backfill of ``dates``; dates past ``retention_days`` are skipped, never queued."""
    monitor = get_monitor(session, team_id=team_id, monitor_id=monitor_id)
    days = validate_backfill_dates(dates)
    if not isinstance(skip_complete, bool):
        raise InvalidRequest(
            "skip_complete must be true or false",
            details=[FieldIssue("skip_complete", "must be a boolean")],
        )
    if monitor.status != "active":
        raise MonitorDisabled("the monitor is disabled; it cannot be backfilled")
    check_waiting_quota(session, team_id, len(days), max_queued)
    task = queue_dates(
        session,
        monitor,
        days,
        kind="backfill",
        skip_complete=skip_complete,
        clock=clock,
        retained_from=retained_from(clock.now(), retention_days),
    )
    assert task is not None
    _completed_at_once(session, task, clock=clock)
    return task


def _completed_at_once(session: Session, task: QueuedTask, *, clock: Clock) -> None:
    """A task that queued nothing has already finished: say so now, in this transaction."""
    if task.queued:
        return
    events.task_completed(
        session,
        team_id=task.team_id,
        monitor_id=task.monitor_id,
        task_id=task.task_id,
        kind=task.kind,
        status=task.status,
        summary=task_summary(task.summary.requested, []),
        clock=clock,
    )
