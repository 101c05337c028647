"""Monitor events for webhooks, recorded in the same transaction as the work they report.

Types and the ``monitor.results.added`` payload are stable (receivers rely on them);
``monitor.run.failed`` and the exact ``monitor.backfill.completed`` payload are Herald's
(docs/monitors.md). ``monitor.backfill.completed`` is sent when a run-now or backfill task
finishes, not for scheduled runs (an hourly monitor would send one every hour for nothing new).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session

from herald.core.clock import Clock, isoformat_z
from herald.monitors.ports import record_event
from herald.monitors.rules import TaskSummary

RESULTS_ADDED = "monitor.results.added"
BACKFILL_COMPLETED = "monitor.backfill.completed"
RUN_FAILED = "monitor.run.failed"
MAX_ITEMS = 20
TASK_KINDS_WITH_COMPLETION_EVENT = frozenset({"manual", "backfill"})


@dataclass(frozen=True, slots=True)
class CapturedItem:
    """What an event says of a newly captured content item."""

    id: str
    title: str
    url: str | None
    published_at: datetime
    source_name: str
    source_domain: str
    enriched_at: datetime | None


def results_added(
    session: Session,
    *,
    team_id: str,
    monitor_id: str,
    run_id: str,
    task_id: str | None,
    published_date: date,
    result_count: int,
    new_items: Sequence[CapturedItem],
    clock: Clock,
) -> str | None:
    data = {
        "monitor_id": monitor_id,
        "run_id": run_id,
        "task_id": task_id,
        "published_date": published_date.isoformat(),
        "new_result_count": len(new_items),
        "result_count": result_count,
        "items": [
            {
                "id": item.id,
                "title": item.title,
                "url": item.url,
                "published_date": isoformat_z(item.published_at),
                "source": {"name": item.source_name, "domain": item.source_domain},
            }
            for item in new_items[:MAX_ITEMS]
        ],
    }
    return record_event(session, team_id=team_id, event_type=RESULTS_ADDED, data=data, clock=clock)


def task_completed(
    session: Session,
    *,
    team_id: str,
    monitor_id: str,
    task_id: str,
    kind: str,
    status: str,
    summary: TaskSummary,
    clock: Clock,
) -> str | None:
    if kind not in TASK_KINDS_WITH_COMPLETION_EVENT:
        return None
    data = {
        "monitor_id": monitor_id,
        "task_id": task_id,
        "kind": kind,
        "status": status,
        "summary": summary.to_json(),
    }
    return record_event(
        session, team_id=team_id, event_type=BACKFILL_COMPLETED, data=data, clock=clock
    )


def run_failed(
    session: Session,
    *,
    team_id: str,
    monitor_id: str,
    run_id: str,
    task_id: str | None,
    published_date: date | None,
    error_message: str,
    attempts: int,
    clock: Clock,
) -> str | None:
    data = {
        "monitor_id": monitor_id,
        "run_id": run_id,
        "task_id": task_id,
        "published_date": published_date.isoformat() if published_date else None,
        "error_message": error_message,
        "attempts": attempts,
    }
    return record_event(session, team_id=team_id, event_type=RUN_FAILED, data=data, clock=clock)
