"""Monitor lifecycle: create, list, read, update (name and schedule only), disable.

Services take a Session and never commit; the request or task boundary does.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import time
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import new_id
from herald.core.pagination import Page, PageRequest
from herald.db.models.monitor import Monitor
from herald.errors import FieldIssue, FieldNotAllowed, InvalidRequest, NotFound
from herald.monitors.queueing import RunRequest, queue_many
from herald.monitors.rules import run_dates
from herald.monitors.saved_search import SavedSearch, parse_saved_search
from herald.monitors.schedule import (
    Schedule,
    due_slot,
    merge_schedule,
    next_run_at,
    parse_schedule,
)

MonitorStatus = Literal["active", "disabled"]
MONITOR_STATUSES: tuple[MonitorStatus, ...] = ("active", "disabled")
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 2000


def schedule_of(monitor: Monitor) -> Schedule:
    run_time = None
    if monitor.run_time is not None:
        hh, mm = monitor.run_time.split(":")
        run_time = time(int(hh), int(mm))
    return Schedule(
        frequency="daily" if monitor.frequency == "daily" else "hourly",
        timezone=monitor.timezone,
        minute=monitor.minute,
        run_time=run_time,
    )


def search_of(monitor: Monitor) -> SavedSearch:
    return SavedSearch.from_json(monitor.search)


def _apply_schedule(monitor: Monitor, schedule: Schedule) -> None:
    monitor.frequency = schedule.frequency
    monitor.timezone = schedule.timezone
    monitor.minute = schedule.minute
    monitor.run_time = schedule.run_time.strftime("%H:%M") if schedule.run_time else None


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidRequest(
            "name is required", details=[FieldIssue("name", "required: a non-empty string")]
        )
    if len(name) > MAX_NAME_CHARS:
        raise InvalidRequest(
            f"name is longer than {MAX_NAME_CHARS} characters",
            details=[FieldIssue("name", f"at most {MAX_NAME_CHARS} characters")],
        )
    return name.strip()


def create_monitor(
    session: Session,
    *,
    team_id: str,
    name: str,
    search: Mapping[str, object],
    schedule: Mapping[str, object] | None,
    description: str | None,
    status: MonitorStatus,
    clock: Clock,
    max_monitors: int = 0,
) -> Monitor:
    """Create a monitor; ``max_monitors`` (0: no cap) bounds how many one workspace may have."""
    now = clock.now()
    clean_name = _check_name(name)
    if max_monitors > 0:
        have = session.scalar(
            select(func.count()).select_from(Monitor).where(Monitor.team_id == team_id)
        )
        if (have or 0) >= max_monitors:
            raise InvalidRequest(
                f"this workspace has {have} monitors, the most it may have ({max_monitors}); "
                "delete one first, or ask the operator to raise the limit"
            )
    if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
        raise InvalidRequest(
            f"description is longer than {MAX_DESCRIPTION_CHARS} characters",
            details=[FieldIssue("description", f"at most {MAX_DESCRIPTION_CHARS} characters")],
        )
    saved = parse_saved_search(search)
    parsed = parse_schedule(schedule, now=now)
    monitor = Monitor(
        id=new_id("mon"),
        team_id=team_id,
        name=clean_name,
        description=description,
        status=status,
        search=saved.to_json(),
        next_run_at=next_run_at(parsed, now) if status == "active" else None,
        created_at=now,
        updated_at=now,
        disabled_at=None if status == "active" else now,
    )
    _apply_schedule(monitor, parsed)
    session.add(monitor)
    session.flush()
    return monitor


def get_monitor(
    session: Session, *, team_id: str, monitor_id: str, for_update: bool = False
) -> Monitor:
    """The workspace's monitor; another workspace's id is a 404 exactly like an unknown one."""
    query = select(Monitor).where(Monitor.id == monitor_id, Monitor.team_id == team_id)
    if for_update:
        query = query.with_for_update()
    monitor = session.scalars(query).one_or_none()
    if monitor is None:
        raise NotFound("no such monitor")
    return monitor


def list_monitors(
    session: Session, *, team_id: str, status: MonitorStatus | None, page: PageRequest
) -> Page[Monitor]:
    query = select(Monitor).where(Monitor.team_id == team_id)
    if status is not None:
        query = query.where(Monitor.status == status)
    rows = session.scalars(
        query.order_by(Monitor.created_at.desc(), Monitor.id.desc())
        .offset(page.offset)
        .limit(page.fetch_limit)
    ).all()
    return Page.from_overfetch(rows, page)


def update_monitor(
    session: Session,
    *,
    team_id: str,
    monitor_id: str,
    changes: Mapping[str, object],
    clock: Clock,
) -> Monitor:
    """PATCH: ``name`` and ``schedule`` only; ``search`` or ``status`` is ``field_not_allowed``."""
    forbidden = [name for name in ("search", "status") if name in changes]
    if forbidden:
        raise FieldNotAllowed(
            "only name and schedule can be changed; the saved search is fixed at creation and "
            "a monitor is disabled with DELETE",
            details=[FieldIssue(name, "cannot be changed") for name in forbidden],
        )
    unknown = sorted(set(changes) - {"name", "schedule"})
    if unknown:
        raise InvalidRequest(
            "unknown fields", details=[FieldIssue(name, "unknown field") for name in unknown]
        )
    monitor = get_monitor(session, team_id=team_id, monitor_id=monitor_id, for_update=True)
    now = clock.now()
    if "name" in changes:
        monitor.name = _check_name(changes["name"])
    raw_schedule = changes.get("schedule")
    if raw_schedule is not None:
        if not isinstance(raw_schedule, Mapping):
            raise InvalidRequest(
                "schedule must be an object",
                details=[FieldIssue("schedule", "must be an object")],
            )
        before = schedule_of(monitor)
        schedule = merge_schedule(before, raw_schedule, now=now)
        # A slot that came due under the old schedule and that no scheduler has claimed yet (the
        # row is locked: none can now) still runs once, as the scheduler would have run it.
        due = None
        if monitor.status == "active" and monitor.next_run_at is not None:
            due = due_slot(before, monitor.next_run_at, now)
        _apply_schedule(monitor, schedule)
        if monitor.status == "active":
            monitor.next_run_at = next_run_at(schedule, now)
        if due is not None:
            run = RunRequest(monitor, run_dates(now), "scheduled", True, due.slot)
            queue_many(session, [run], clock=clock)
    monitor.updated_at = now
    session.flush()
    return monitor


def disable_monitor(session: Session, *, team_id: str, monitor_id: str, clock: Clock) -> Monitor:
    """DELETE: permanently disabled, never scheduled again. Repeating it changes nothing.

    Dated jobs already queued end ``skipped`` when a worker reaches them.
    """
    monitor = get_monitor(session, team_id=team_id, monitor_id=monitor_id, for_update=True)
    if monitor.status != "disabled":
        now = clock.now()
        monitor.status = "disabled"
        monitor.next_run_at = None
        monitor.disabled_at = now
        monitor.updated_at = now
        session.flush()
    return monitor
