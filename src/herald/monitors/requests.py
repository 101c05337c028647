"""Run-now and backfill requests: validate, queue, and report (in the caller's transaction)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.errors import FieldIssue, InvalidRequest, MonitorDisabled
from herald.monitors import events
from herald.monitors.queueing import QueuedTask, queue_dates
from herald.monitors.rules import run_dates, task_summary, validate_backfill_dates
from herald.monitors.service import get_monitor


def run_now(session: Session, *, team_id: str, monitor_id: str, clock: Clock) -> QueuedTask:
    """Queue the same work as a scheduled run: today (UTC) and the trailing three days."""
    monitor = get_monitor(session, team_id=team_id, monitor_id=monitor_id)
    if monitor.status != "active":
        raise MonitorDisabled("the monitor is disabled; it cannot run")
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
) -> QueuedTask:
    monitor = get_monitor(session, team_id=team_id, monitor_id=monitor_id)
    days = validate_backfill_dates(dates)
    if not isinstance(skip_complete, bool):
        raise InvalidRequest(
            "skip_complete must be true or false",
            details=[FieldIssue("skip_complete", "must be a boolean")],
        )
    if monitor.status != "active":
        raise MonitorDisabled("the monitor is disabled; it cannot be backfilled")
    task = queue_dates(
        session, monitor, days, kind="backfill", skip_complete=skip_complete, clock=clock
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
