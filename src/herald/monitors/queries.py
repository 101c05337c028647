"""Read views of a monitor's work: ledger, tasks, runs, results (all SQL for those reads)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import cast

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from herald.core.pagination import Page, PageRequest
from herald.db.models.content import ContentItem
from herald.db.models.monitor import MonitorLedgerEntry, MonitorResult, MonitorRun
from herald.errors import NotFound
from herald.monitors.rules import (
    DatedJobStatus,
    LedgerStatus,
    LedgerSummary,
    TaskSummary,
    ledger_summary,
    task_summary,
)


@dataclass(frozen=True, slots=True)
class LedgerPage:
    page: Page[MonitorLedgerEntry]
    summary: LedgerSummary


def ledger_page(
    session: Session,
    *,
    monitor_id: str,
    start_date: date | None,
    end_date: date | None,
    status: LedgerStatus | None,
    page: PageRequest,
) -> LedgerPage:
    """Ledger entries newest date first; the summary counts every entry the filters match."""
    conditions = [MonitorLedgerEntry.monitor_id == monitor_id]
    if start_date is not None:
        conditions.append(MonitorLedgerEntry.published_date >= start_date)
    if end_date is not None:
        conditions.append(MonitorLedgerEntry.published_date <= end_date)
    if status is not None:
        conditions.append(MonitorLedgerEntry.status == status)
    rows = session.scalars(
        select(MonitorLedgerEntry)
        .where(*conditions)
        .order_by(MonitorLedgerEntry.published_date.desc())
        .offset(page.offset)
        .limit(page.fetch_limit)
    ).all()
    counts = session.execute(
        select(MonitorLedgerEntry.status, func.count())
        .where(*conditions)
        .group_by(MonitorLedgerEntry.status)
    ).all()
    statuses: list[LedgerStatus] = []
    for name, count in counts:
        statuses.extend([cast(LedgerStatus, name)] * int(count))
    return LedgerPage(Page.from_overfetch(rows, page), ledger_summary(statuses))


@dataclass(frozen=True, slots=True)
class TaskView:
    parent: MonitorRun
    children: list[MonitorRun]
    summary: TaskSummary


def task_view(session: Session, *, monitor_id: str, task_id: str) -> TaskView:
    parent = session.scalars(
        select(MonitorRun).where(
            MonitorRun.id == task_id,
            MonitorRun.monitor_id == monitor_id,
            MonitorRun.kind != "dated",
        )
    ).one_or_none()
    if parent is None:
        raise NotFound("no such task")
    children = list(
        session.scalars(
            select(MonitorRun)
            .where(MonitorRun.parent_run_id == task_id)
            .order_by(MonitorRun.published_date.desc())
        )
    )
    statuses = [cast(DatedJobStatus, child.status) for child in children]
    return TaskView(parent, children, task_summary(parent.requested_count, statuses))


@dataclass(frozen=True, slots=True)
class RunTotals:
    result_count: int
    new_result_count: int


def runs_page(
    session: Session, *, monitor_id: str, page: PageRequest
) -> tuple[Page[MonitorRun], dict[str, RunTotals]]:
    """Runs newest first, each parent before its dated jobs; parents' counts are their sums."""
    rows = session.scalars(
        select(MonitorRun)
        .where(MonitorRun.monitor_id == monitor_id)
        .order_by(
            MonitorRun.created_at.desc(),
            case((MonitorRun.parent_run_id.is_(None), 0), else_=1),
            MonitorRun.published_date.desc(),
            MonitorRun.id,
        )
        .offset(page.offset)
        .limit(page.fetch_limit)
    ).all()
    result = Page.from_overfetch(rows, page)
    parents = [run.id for run in result.items if run.kind != "dated"]
    totals: dict[str, RunTotals] = {}
    if parents:
        sums = session.execute(
            select(
                MonitorRun.parent_run_id,
                func.coalesce(func.sum(MonitorRun.result_count), 0),
                func.coalesce(func.sum(MonitorRun.new_result_count), 0),
            )
            .where(MonitorRun.parent_run_id.in_(parents))
            .group_by(MonitorRun.parent_run_id)
        ).all()
        totals = {str(pid): RunTotals(int(rc or 0), int(nrc or 0)) for pid, rc, nrc in sums}
    return result, totals


@dataclass(frozen=True, slots=True)
class StoredResult:
    item: ContentItem
    published_date: date
    first_captured_at: datetime
    score: float


def results_page(
    session: Session,
    *,
    monitor_id: str,
    start: datetime | None,
    end: datetime | None,
    page: PageRequest,
) -> Page[StoredResult]:
    """The store newest published first; ``[start, end)`` bounds the item's publication time."""
    query = (
        select(MonitorResult, ContentItem)
        .join(ContentItem, ContentItem.id == MonitorResult.content_id)
        .where(MonitorResult.monitor_id == monitor_id, ContentItem.deleted_at.is_(None))
    )
    if start is not None:
        query = query.where(MonitorResult.published_at >= start)
    if end is not None:
        query = query.where(MonitorResult.published_at < end)
    rows = session.execute(
        query.order_by(MonitorResult.published_at.desc(), MonitorResult.content_id)
        .offset(page.offset)
        .limit(page.fetch_limit)
    ).all()
    items = [
        StoredResult(item, result.published_date, result.first_captured_at, result.score)
        for result, item in rows
    ]
    return Page.from_overfetch(items, page)


def store_content_ids(session: Session, *, monitor_id: str) -> frozenset[str]:
    return frozenset(
        session.scalars(
            select(MonitorResult.content_id).where(MonitorResult.monitor_id == monitor_id)
        )
    )
