"""The monitor scheduler: claim due slots exactly once and queue their runs.

Any number of schedulers (one per ``herald serve`` / ``herald worker``) may run this at once.
Exactly-once per slot rests on three layers, any one of which suffices:
1. PostgreSQL hands each due monitor row to one scheduler (``FOR UPDATE SKIP LOCKED``); SQLite
   serialises writers;
2. the claim is a compare-and-set of ``next_run_at`` from the slot that was read to the next one;
3. a scheduled run is unique per (monitor, slot) in the database.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.models.monitor import Monitor
from herald.monitors.queueing import QueuedTask, RunRequest, queue_many
from herald.monitors.rules import run_dates
from herald.monitors.schedule import DueSlot, due_slot
from herald.monitors.service import schedule_of

log = logging.getLogger(__name__)

CLAIM_BATCH = 500
MONITORS = cast(Table, Monitor.__table__)


@dataclass(frozen=True, slots=True)
class ClaimReport:
    examined: int
    runs: list[QueuedTask]


def claim_due_monitors(session: Session, *, clock: Clock, limit: int = CLAIM_BATCH) -> ClaimReport:
    """Claim up to ``limit`` due monitors and queue one scheduled run for each claimed slot."""
    now = clock.now()
    due = list(
        session.scalars(
            select(Monitor)
            .where(Monitor.status == "active", Monitor.next_run_at <= now)
            .order_by(Monitor.next_run_at, Monitor.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    slots: list[tuple[Monitor, DueSlot]] = []
    for monitor in due:
        if monitor.next_run_at is None:
            continue
        slot = due_slot(schedule_of(monitor), monitor.next_run_at, now)
        if slot is not None:
            slots.append((monitor, slot))
    claimed = _compare_and_set(session, slots)
    for monitor, slot in claimed:
        if slot.slot != monitor.next_run_at:
            log.info(
                "monitor slots missed while the service was down; ran once",
                extra={
                    "monitor_id": monitor.id,
                    "first_missed": monitor.next_run_at.isoformat()
                    if monitor.next_run_at
                    else None,
                    "ran_slot": slot.slot.isoformat(),
                },
            )
    dates = run_dates(now)
    tasks = queue_many(
        session,
        [RunRequest(monitor, dates, "scheduled", True, slot.slot) for monitor, slot in claimed],
        clock=clock,
    )
    for monitor, _ in claimed:
        session.expire(monitor, ["next_run_at"])
    return ClaimReport(examined=len(due), runs=[t for t in tasks if t is not None])


def _compare_and_set(
    session: Session, slots: list[tuple[Monitor, DueSlot]]
) -> list[tuple[Monitor, DueSlot]]:
    """Move each ``next_run_at`` from the value read to the next slot; the pairs that moved."""
    if not slots:
        return []
    statement = (
        update(MONITORS)
        .where(
            MONITORS.c.id == bindparam("b_id"),
            MONITORS.c.status == "active",
            MONITORS.c.next_run_at == bindparam("b_seen", type_=MONITORS.c.next_run_at.type),
        )
        .values(next_run_at=bindparam("b_next", type_=MONITORS.c.next_run_at.type))
    )
    params: list[dict[str, Any]] = [
        {"b_id": m.id, "b_seen": m.next_run_at, "b_next": s.next_run_at} for m, s in slots
    ]
    dialect = session.get_bind().dialect
    if dialect.supports_sane_multi_rowcount:
        with session.begin_nested() as savepoint:
            result = session.execute(statement, params)
            if result.rowcount == len(params):  # type: ignore[attr-defined]
                return slots
            savepoint.rollback()  # someone else moved one: find out which, one by one
    moved = []
    for (monitor, slot), values in zip(slots, params, strict=True):
        if session.execute(statement, values).rowcount == 1:  # type: ignore[attr-defined]
            moved.append((monitor, slot))
    return moved
