"""The request bodies and queries of ``client.monitors`` (both clients), and the pages' items."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from herald_client._resources._base import (
    checked,
)
from herald_client.models import (
    BackfillLedger,
    BackfillRequest,
    LedgerEntry,
    LedgerQuery,
    Monitor,
    MonitorCreateRequest,
    MonitorList,
    MonitorListQuery,
    MonitorPreviewRequest,
    MonitorResult,
    MonitorResultList,
    MonitorRun,
    MonitorRunList,
    MonitorSearchParams,
    MonitorStoreSearchRequest,
    MonitorUpdateRequest,
    ResultsQuery,
    ScheduleParams,
)
from herald_client.models._base import DateInput
from herald_client.models._enums import LedgerStatus, MonitorStatus

SearchInput = MonitorSearchParams | Mapping[str, Any]
ScheduleInput = ScheduleParams | Mapping[str, Any]


def create_body(
    name: str,
    search: SearchInput,
    description: str | None,
    schedule: ScheduleInput | None,
    status: MonitorStatus | None,
) -> MonitorCreateRequest:
    return checked(
        MonitorCreateRequest,
        {
            "name": name,
            "search": search,
            "description": description,
            "schedule": schedule,
            "status": status,
        },
    )


def update_body(name: str | None, schedule: ScheduleInput | None) -> MonitorUpdateRequest:
    return checked(MonitorUpdateRequest, {"name": name, "schedule": schedule})


def list_query(
    limit: int | None, offset: int | None, status: MonitorStatus | None
) -> MonitorListQuery:
    return checked(MonitorListQuery, {"limit": limit, "offset": offset, "status": status})


def ledger_query(
    start_date: DateInput | None,
    end_date: DateInput | None,
    status: LedgerStatus | None,
    limit: int | None,
    offset: int | None,
) -> LedgerQuery:
    return checked(
        LedgerQuery,
        {
            "start_date": start_date,
            "end_date": end_date,
            "status": status,
            "limit": limit,
            "offset": offset,
        },
    )


def results_query(
    start_date: DateInput | None,
    end_date: DateInput | None,
    limit: int | None,
    offset: int | None,
    explain: bool | None = None,
) -> ResultsQuery:
    return checked(
        ResultsQuery,
        {
            "start_date": start_date,
            "end_date": end_date,
            "limit": limit,
            "offset": offset,
            "explain": explain,
        },
    )


def backfill_body(dates: Sequence[DateInput], skip_complete: bool | None) -> BackfillRequest:
    return checked(BackfillRequest, {"dates": dates, "skip_complete": skip_complete})


def monitors_of(page: MonitorList) -> builtins.list[Monitor]:
    return page.monitors


def entries_of(page: BackfillLedger) -> builtins.list[LedgerEntry]:
    return page.backfills


def runs_of(page: MonitorRunList) -> builtins.list[MonitorRun]:
    return page.runs


def results_of(page: MonitorResultList) -> builtins.list[MonitorResult]:
    return page.results


def preview_body(
    search: SearchInput, days: int | None, explain: bool | None
) -> MonitorPreviewRequest:
    return checked(MonitorPreviewRequest, {"search": search, "days": days, "explain": explain})


def store_body(body: BaseModel, explain: bool | None) -> MonitorStoreSearchRequest:
    return checked(MonitorStoreSearchRequest, {**body.model_dump(), "explain": explain})


def path_ids(monitor_id: str, **more: str) -> dict[str, str | int]:
    return {"monitor_id": monitor_id, **more}
