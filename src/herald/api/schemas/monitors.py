"""Request and response shapes of the monitor endpoints (semantics: docs/monitors.md).

Saved searches and schedules arrive as JSON objects and are validated by the domain
(:mod:`herald.monitors.saved_search`, :mod:`herald.monitors.schedule`), which picks the stable
error codes (``field_not_allowed``, ``invalid_timezone``, ...).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from herald.api.schemas.common import (
    DATE_SCHEMA,
    NOT_BLANK_SCHEMA,
    DateText,
    Meta,
    RequestModel,
    ResponseModel,
    UtcTimestamp,
)
from herald.api.schemas.content import ContentItemOut, SearchResult
from herald.api.schemas.match import MatchOut
from herald.api.schemas.search_fields import QUERY_SCHEMA, Domains, EntityIds, MediaTypes
from herald.db.models.monitor import Monitor
from herald.monitors.queries import StoredResult
from herald.monitors.queueing import QueuedTask
from herald.monitors.rules import MAX_BACKFILL_DATES
from herald.monitors.saved_search import SavedSearch
from herald.monitors.service import schedule_of

# The names come from the server's time zone database, so the document describes them instead
# of listing them (the list would change with the database).
TIMEZONE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "An IANA time zone name (`invalid_timezone` otherwise).",
    "examples": ["Europe/Oslo", "America/New_York", "UTC"],
}
RUN_TIME_SCHEMA: dict[str, Any] = {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}
BACKFILL_DATES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": DATE_SCHEMA,
    "minItems": 1,
    "maxItems": MAX_BACKFILL_DATES,
    "uniqueItems": True,
}

SEARCH_DOC = (
    "Saved search: `query` (required), `media_types`, `include_domains` or `exclude_domains` "
    "(at most 10), `entity_ids`. `start_date`, `end_date` and `limit` are not allowed."
)
SCHEDULE_DOC = (
    "`frequency` (`hourly` | `daily`, default hourly), `timezone` (IANA, default UTC), "
    "`minute` (hourly, 0-59) or `run_time` (daily, HH:MM); defaults from the creation time."
)


class _SavedSearchIn(ResponseModel):
    query: str = Field(json_schema_extra=QUERY_SCHEMA)
    media_types: MediaTypes | None = None
    include_domains: Domains | None = None
    exclude_domains: Domains | None = None
    entity_ids: EntityIds | None = None


class SavedSearchOut(ResponseModel):
    """A monitor's saved search: the query and the filters that were given (no window, no limit)."""

    query: str
    media_types: list[Literal["news", "wire", "podcast"]] | None = None
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    entity_ids: list[str] | None = None


class ScheduleOut(ResponseModel):
    frequency: Literal["hourly", "daily"]
    timezone: str = Field(description="IANA time zone name.")
    minute: int | None = Field(default=None, description="Hourly: the minute of the hour, 0-59.")
    run_time: str | None = Field(default=None, description="Daily: `HH:MM` on the wall clock.")


class _ScheduleIn(ResponseModel):
    frequency: Literal["hourly", "daily"] | None = None
    timezone: Annotated[str, WithJsonSchema(TIMEZONE_SCHEMA)] | None = None
    minute: int | None = Field(default=None, ge=0, le=59)
    run_time: Annotated[str, WithJsonSchema(RUN_TIME_SCHEMA)] | None = None


# The request bodies are validated by the domain (it picks the stable error codes), so the
# models only describe them in the OpenAPI document.
SavedSearchIn = Annotated[dict[str, Any], WithJsonSchema(_SavedSearchIn.model_json_schema())]
ScheduleIn = Annotated[dict[str, Any], WithJsonSchema(_ScheduleIn.model_json_schema())]


class CreateMonitorRequest(RequestModel):
    name: str = Field(description="Display name.", json_schema_extra=NOT_BLANK_SCHEMA)
    description: str | None = Field(default=None, description="Short description.")
    search: SavedSearchIn = Field(description=SEARCH_DOC)
    schedule: ScheduleIn | None = Field(default=None, description=SCHEDULE_DOC)
    status: Literal["active", "disabled"] = Field(default="active")


class UpdateMonitorRequest(RequestModel):
    name: Annotated[str, WithJsonSchema(NOT_BLANK_SCHEMA)] | None = Field(
        default=None, description="New display name."
    )
    schedule: ScheduleIn | None = Field(
        default=None, description="Fields given replace the current ones. " + SCHEDULE_DOC
    )
    # Declared so that sending them is the documented field_not_allowed, not an unknown field.
    # The schema `not: {}` says no value is ever valid (field_not_allowed).
    search: Annotated[Any, WithJsonSchema({"not": {}})] = Field(
        default=None, description="Never allowed: the saved search is fixed."
    )
    status: Annotated[Any, WithJsonSchema({"not": {}})] = Field(
        default=None, description="Never allowed: disable with DELETE."
    )


class RunNowRequest(RequestModel):
    """Run-now takes no fields; an empty body or `{}` is fine."""


class BackfillRequest(RequestModel):
    dates: Annotated[list[Any], WithJsonSchema(BACKFILL_DATES_SCHEMA)] = Field(
        description="UTC published dates `YYYY-MM-DD`; 1 to 100, distinct."
    )
    skip_complete: bool = Field(
        default=True,
        description="Skip dates already complete (a job succeeded 72 h after their midnight).",
    )


class StoreSearchRequest(RequestModel):
    query: str = Field(json_schema_extra=QUERY_SCHEMA)
    start_date: DateText | None = None
    end_date: DateText | None = None
    media_types: MediaTypes | None = None
    include_domains: Domains | None = None
    exclude_domains: Domains | None = None
    entity_ids: EntityIds | None = None
    limit: int = Field(default=10, ge=1, le=100)
    explain: bool = Field(default=False, description="Add `match` evidence to each result.")


class MonitorOut(ResponseModel):
    id: str
    team_id: str = Field(
        description="The workspace the monitor belongs to (the workspace of the key that made it)."
    )
    name: str
    description: str | None
    status: str
    search: SavedSearchOut
    schedule: ScheduleOut
    next_run_at: UtcTimestamp | None
    created_at: UtcTimestamp
    updated_at: UtcTimestamp


def monitor_out(monitor: Monitor) -> MonitorOut:
    return MonitorOut(
        id=monitor.id,
        team_id=monitor.team_id,
        name=monitor.name,
        description=monitor.description,
        status=monitor.status,
        search=SavedSearchOut.model_validate(SavedSearch.from_json(monitor.search).to_json()),
        schedule=ScheduleOut.model_validate(schedule_of(monitor).to_json()),
        next_run_at=monitor.next_run_at,
        created_at=monitor.created_at,
        updated_at=monitor.updated_at,
    )


class MonitorList(ResponseModel):
    monitors: list[MonitorOut]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta


class QueuedJobOut(ResponseModel):
    published_date: date
    run_id: str
    task_id: str = Field(description="Equals `run_id`.")
    already_complete: bool
    latest_indexed_content: UtcTimestamp | None


class SkippedDateOut(ResponseModel):
    published_date: date
    already_complete: bool
    latest_indexed_content: UtcTimestamp | None
    reason: Literal["already_complete", "already_running"]


class RequestSummaryOut(ResponseModel):
    requested: int
    queued: int
    already_complete: int
    already_running: int
    failed: int


class TaskCreated(ResponseModel):
    task_id: str
    status: str
    queued: list[QueuedJobOut]
    skipped: list[SkippedDateOut]
    summary: RequestSummaryOut
    meta: Meta


def task_created(task: QueuedTask, meta: Meta) -> TaskCreated:
    return TaskCreated(
        task_id=task.task_id,
        status=task.status,
        queued=[
            QueuedJobOut(
                published_date=q.published_date,
                run_id=q.run_id,
                task_id=q.run_id,
                already_complete=q.already_complete,
                latest_indexed_content=q.latest_indexed_content,
            )
            for q in task.queued
        ],
        skipped=[
            SkippedDateOut(
                published_date=s.published_date,
                already_complete=s.already_complete,
                latest_indexed_content=s.latest_indexed_content,
                reason="already_complete" if s.reason == "already_complete" else "already_running",
            )
            for s in task.skipped
        ],
        summary=RequestSummaryOut(**task.summary.to_json()),
        meta=meta,
    )


class ResultOut(ResponseModel):
    content_item: ContentItemOut
    published_date: date = Field(description="UTC published date of the item.")
    first_captured_at: UtcTimestamp
    score: float
    match: MatchOut | None = Field(
        default=None, description="Why the item matched: only with `explain=true`."
    )


def result_out(result: StoredResult, content_item: ContentItemOut) -> ResultOut:
    return ResultOut(
        content_item=content_item,
        published_date=result.published_date,
        first_captured_at=result.first_captured_at,
        score=result.score,
    )


class ResultsResponse(ResponseModel):
    monitor_id: str
    results: list[ResultOut]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta


class StoreSearchResponse(ResponseModel):
    results: list[SearchResult]
    meta: Meta
