"""Response shapes of a monitor's dated jobs: the ledger, the tasks that queue them and the
runs that execute them (semantics: docs/monitors.md)."""

from __future__ import annotations

import datetime as dt
from datetime import date
from typing import Literal

from pydantic import Field

from herald.api.schemas.common import Meta, ResponseModel, UtcTimestamp
from herald.db.models.monitor import MonitorLedgerEntry, MonitorRun
from herald.monitors.queries import RunTotals
from herald.monitors.rules import LedgerSummary, TaskSummary


class LedgerEntryOut(ResponseModel):
    date: dt.date
    status: str
    run_id: str
    origin: str = Field(description="`scheduled`, `manual` or `backfill`: who queued the job.")
    backfill_run_at: UtcTimestamp = Field(description="When the latest job started (or queued).")
    backfill_run_date: dt.date
    latest_indexed_content_at: UtcTimestamp | None
    result_count: int
    error_message: str | None
    complete: bool = Field(description="A job succeeded having started 72 h after midnight.")


def ledger_entry_out(entry: MonitorLedgerEntry) -> LedgerEntryOut:
    return LedgerEntryOut(
        date=entry.published_date,
        status=entry.status,
        run_id=entry.run_id,
        origin=entry.run_origin,
        backfill_run_at=entry.run_at,
        backfill_run_date=entry.run_at.date(),
        latest_indexed_content_at=entry.latest_indexed_content_at,
        result_count=entry.result_count,
        error_message=entry.error_message,
        complete=entry.completed_at is not None,
    )


class LedgerSummaryOut(ResponseModel):
    total: int
    running: int
    succeeded: int
    failed: int
    skipped: int


class LedgerResponse(ResponseModel):
    monitor_id: str
    backfills: list[LedgerEntryOut]
    summary: LedgerSummaryOut
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta


def ledger_summary_out(summary: LedgerSummary) -> LedgerSummaryOut:
    return LedgerSummaryOut(**summary.to_json())


class TaskChildOut(ResponseModel):
    published_date: date
    run_id: str
    task_id: str
    status: str
    latest_indexed_content: UtcTimestamp | None
    result_count: int | None
    new_result_count: int | None
    error_message: str | None
    started_at: UtcTimestamp | None
    finished_at: UtcTimestamp | None


class TaskSummaryOut(ResponseModel):
    requested: int
    queued: int
    running: int
    succeeded: int
    failed: int
    skipped: int


class TaskResponse(ResponseModel):
    task_id: str
    monitor_id: str
    kind: str
    status: str
    created_at: UtcTimestamp
    started_at: UtcTimestamp | None
    finished_at: UtcTimestamp | None
    summary: TaskSummaryOut
    tasks: list[TaskChildOut]
    meta: Meta


def task_child_out(run: MonitorRun) -> TaskChildOut:
    assert run.published_date is not None
    return TaskChildOut(
        published_date=run.published_date,
        run_id=run.id,
        task_id=run.id,
        status=run.status,
        latest_indexed_content=run.latest_indexed_content_at,
        result_count=run.result_count,
        new_result_count=run.new_result_count,
        error_message=run.error_message,
        started_at=run.started_at,
        finished_at=run.finished_at,
    )


def task_summary_out(summary: TaskSummary) -> TaskSummaryOut:
    return TaskSummaryOut(**summary.to_json())


class RunOut(ResponseModel):
    run_id: str
    kind: Literal["scheduled", "manual", "backfill", "dated"]
    parent_run_id: str | None
    published_date: date | None
    status: str
    created_at: UtcTimestamp
    started_at: UtcTimestamp | None
    finished_at: UtcTimestamp | None
    result_count: int | None
    new_result_count: int | None
    error_message: str | None


def run_out(run: MonitorRun, totals: dict[str, RunTotals]) -> RunOut:
    result_count, new_result_count = run.result_count, run.new_result_count
    if run.kind != "dated":  # a parent shows the sums of its dated jobs
        total = totals.get(run.id, RunTotals(0, 0))
        result_count, new_result_count = total.result_count, total.new_result_count
    return RunOut(
        run_id=run.id,
        kind=run.kind,
        parent_run_id=run.parent_run_id,
        published_date=run.published_date,
        status=run.status,
        created_at=run.created_at,
        started_at=run.started_at,
        finished_at=run.finished_at,
        result_count=result_count,
        new_result_count=new_result_count,
        error_message=run.error_message,
    )


class RunsResponse(ResponseModel):
    monitor_id: str
    runs: list[RunOut]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta
