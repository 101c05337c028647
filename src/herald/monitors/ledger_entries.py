"""The dates' ledger entries as queueing writes them: pointed at each new job, or marked past
retention. One upsert per batch of dates, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, cast

from sqlalchemy import Table
from sqlalchemy.orm import Session

from herald.db.dialect import insert_for
from herald.db.models.monitor import MonitorLedgerEntry

if TYPE_CHECKING:
    from herald.monitors.queueing import RunRequest
    from herald.monitors.rules import DatePlan

LEDGER = cast(Table, MonitorLedgerEntry.__table__)


def mark_past_retention(
    session: Session, past: list[tuple[RunRequest, str, DatePlan]], now: datetime
) -> None:
    """The ledger says a date is past retention: ``skipped``, with why, and no results left."""
    rows = [
        _ledger_row(request, plan, task_id, now, "skipped")
        | {
            "error_message": (
                "past retention: items published before "
                f"{request.retained_from} are deleted (HERALD_RETENTION_DAYS)"
            )
        }
        for request, task_id, plan in past
    ]
    # A date whose job is still in flight (waiting to retry when the date passed the limit)
    # keeps following that job: the ledger shows the latest dated job, and a request is none.
    _upsert_ledger(
        session,
        rows,
        "skipped",
        fixed={"result_count": 0},
        take=("error_message",),
        unless_running=True,
    )


def point_ledger_at(
    session: Session, queued: list[tuple[RunRequest, str, DatePlan, str]], now: datetime
) -> None:
    """Each date's ledger entry follows its new (latest) job; earlier numbers stay until it ends."""
    rows = [
        _ledger_row(request, plan, run_id, now, "running")
        for request, _task_id, plan, run_id in queued
    ]
    _upsert_ledger(session, rows, "running", fixed={"error_message": None})


def _ledger_row(
    request: RunRequest, plan: DatePlan, run_id: str, now: datetime, status: str
) -> dict[str, object]:
    return {
        "monitor_id": request.monitor.id,
        "published_date": plan.published_date,
        "status": status,
        "run_id": run_id,
        "run_origin": request.kind,
        "run_at": now,
        "result_count": 0,
        "updated_at": now,
    }


def _upsert_ledger(
    session: Session,
    rows: list[dict[str, object]],
    status: str,
    *,
    fixed: dict[str, object],
    take: tuple[str, ...] = (),
    unless_running: bool = False,
) -> None:
    """Insert the dates' ledger entries, or point existing ones at ``status`` and the new run;
    an existing entry also gets the ``fixed`` values and the row's own ``take`` columns.
    ``unless_running``: an existing entry whose job is in flight is left as it is."""
    if not rows:
        return
    statement = insert_for(session, LEDGER)
    excluded = statement.excluded
    statement = statement.on_conflict_do_update(
        index_elements=["monitor_id", "published_date"],
        set_={
            "status": status,
            "run_id": excluded.run_id,
            "run_origin": excluded.run_origin,
            "run_at": excluded.run_at,
            "updated_at": excluded.updated_at,
            **fixed,
            **{column: excluded[column] for column in take},
        },
        where=LEDGER.c.status != "running" if unless_running else None,
    )
    session.execute(statement, rows)
