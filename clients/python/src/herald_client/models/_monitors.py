"""Monitors: saved searches, schedules, runs, backfills, results (section "Monitors")."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from herald_client.models._base import DateInput, HeraldModel, Meta, RequestModel
from herald_client.models._content import ContentItem
from herald_client.models._enums import LedgerStatus, MediaType, MonitorStatus, ScheduleFrequency
from herald_client.models._match import Match

__all__ = [
    "BackfillLedger",
    "BackfillRequest",
    "BackfillTask",
    "DatedJob",
    "LedgerEntry",
    "LedgerQuery",
    "LedgerSummary",
    "Monitor",
    "MonitorCreateRequest",
    "MonitorList",
    "MonitorListQuery",
    "MonitorResult",
    "MonitorResultList",
    "MonitorRun",
    "MonitorRunList",
    "MonitorSearch",
    "MonitorSearchParams",
    "MonitorUpdateRequest",
    "QueueSummary",
    "QueuedJob",
    "QueuedTask",
    "ResultsQuery",
    "RunsQuery",
    "Schedule",
    "ScheduleParams",
    "SkippedDate",
    "TaskSummary",
]


class MonitorSearch(HeraldModel):
    """A monitor's saved search as the server shows it (no window, no limit)."""

    query: str
    media_types: list[str] | None = None
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    entity_ids: list[str] | None = None


class Schedule(HeraldModel):
    frequency: str  # "hourly" or "daily"
    timezone: str  # IANA name
    minute: int | None = None  # hourly
    run_time: str | None = None  # daily, "HH:MM" on the timezone's wall clock


class Monitor(HeraldModel):
    id: str
    team_id: str
    name: str
    description: str | None = None
    status: str  # "active" or "disabled"
    search: MonitorSearch
    schedule: Schedule
    next_run_at: dt.datetime | None  # null once disabled
    created_at: dt.datetime
    updated_at: dt.datetime


class MonitorList(HeraldModel):
    monitors: list[Monitor]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta | None = None


class QueueSummary(HeraldModel):
    """Outcome counts of a run-now or backfill request (each requested date counted once)."""

    requested: int
    queued: int
    already_complete: int
    already_running: int
    failed: int


class QueuedJob(HeraldModel):
    published_date: dt.date
    run_id: str
    task_id: str
    already_complete: bool
    latest_indexed_content: dt.datetime | None = None


class SkippedDate(HeraldModel):
    published_date: dt.date
    already_complete: bool
    latest_indexed_content: dt.datetime | None = None
    reason: str | None = None  # "already_complete" or "already_running"


class QueuedTask(HeraldModel):
    """Response of run-now and of a backfill: the parent task and its dated jobs."""

    task_id: str
    status: str
    queued: list[QueuedJob]
    skipped: list[SkippedDate] = Field(default_factory=list)
    summary: QueueSummary
    meta: Meta | None = None


class LedgerEntry(HeraldModel):
    date: dt.date
    status: str  # running, succeeded, failed, skipped
    run_id: str | None = None
    backfill_run_at: dt.datetime | None = None
    backfill_run_date: dt.date | None = None
    latest_indexed_content_at: dt.datetime | None = None
    result_count: int | None = None
    error_message: str | None = None
    origin: str | None = None  # scheduled, manual or backfill: who queued the latest job
    complete: bool | None = None  # a job succeeded having started 72 h after the date


class LedgerSummary(HeraldModel):
    total: int
    running: int
    succeeded: int
    failed: int
    skipped: int


class BackfillLedger(HeraldModel):
    monitor_id: str
    backfills: list[LedgerEntry]
    summary: LedgerSummary
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta | None = None


class TaskSummary(HeraldModel):
    requested: int
    queued: int
    running: int
    succeeded: int
    failed: int
    skipped: int


class DatedJob(HeraldModel):
    """A child of a parent task: the job for one published date."""

    published_date: dt.date
    run_id: str
    task_id: str
    status: str
    latest_indexed_content: dt.datetime | None = None
    result_count: int | None = None
    new_result_count: int | None = None
    error_message: str | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None


class BackfillTask(HeraldModel):
    task_id: str
    status: str  # queued, running, succeeded, failed
    monitor_id: str | None = None
    kind: str | None = None  # manual, backfill or scheduled
    created_at: dt.datetime | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    summary: TaskSummary
    tasks: list[DatedJob]
    meta: Meta | None = None


class MonitorRun(HeraldModel):
    run_id: str
    kind: str  # scheduled, manual, backfill, dated
    parent_run_id: str | None = None
    published_date: dt.date | None = None
    status: str
    created_at: dt.datetime
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    result_count: int | None = None
    new_result_count: int | None = None
    error_message: str | None = None


class MonitorRunList(HeraldModel):
    monitor_id: str
    runs: list[MonitorRun]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta | None = None


class MonitorResult(HeraldModel):
    content_item: ContentItem
    published_date: dt.date  # the item's UTC published date
    first_captured_at: dt.datetime
    score: float | None = None
    match: Match | None = None  # only with explain=True


class MonitorResultList(HeraldModel):
    monitor_id: str
    results: list[MonitorResult]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta | None = None


class MonitorSearchParams(RequestModel):
    """The saved search given at creation. ``start_date``, ``end_date`` and ``limit`` are
    refused by the server (``field_not_allowed``): a monitor computes its windows itself."""

    query: str
    media_types: list[MediaType] | None = None
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    entity_ids: list[str] | None = None


class ScheduleParams(RequestModel):
    frequency: ScheduleFrequency | None = None
    timezone: str | None = None
    minute: int | None = None
    run_time: str | None = None


class MonitorCreateRequest(RequestModel):
    name: str
    description: str | None = None
    search: MonitorSearchParams
    schedule: ScheduleParams | None = None
    status: MonitorStatus | None = None


class MonitorUpdateRequest(RequestModel):
    name: str | None = None
    schedule: ScheduleParams | None = None


class MonitorListQuery(RequestModel):
    limit: int | None = None
    offset: int | None = None
    status: MonitorStatus | None = None


class BackfillRequest(RequestModel):
    dates: list[DateInput]
    skip_complete: bool | None = None


class LedgerQuery(RequestModel):
    start_date: DateInput | None = None
    end_date: DateInput | None = None
    status: LedgerStatus | None = None
    limit: int | None = None
    offset: int | None = None


class RunsQuery(RequestModel):
    limit: int | None = None
    offset: int | None = None


class ResultsQuery(RequestModel):
    start_date: DateInput | None = None
    end_date: DateInput | None = None
    limit: int | None = None
    offset: int | None = None
    explain: bool | None = None
