"""Monitors: saved searches on schedules, run-now, backfills, ledger, runs, results, store search.

Every endpoint is scoped to the key's workspace: another workspace's monitor is a 404.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query

from herald.api.deps import ClockDep, PrincipalDep, RuntimeDep
from herald.api.schemas.common import DateText, DayText, ErrorBody, current_meta
from herald.api.schemas.content import SearchResult, search_form
from herald.api.schemas.match import MatchOut
from herald.api.schemas.monitor_runs import (
    LedgerResponse,
    RunsResponse,
    TaskResponse,
    ledger_entry_out,
    ledger_summary_out,
    run_out,
    task_child_out,
    task_summary_out,
)
from herald.api.schemas.monitors import (
    BackfillRequest,
    CreateMonitorRequest,
    MonitorList,
    MonitorOut,
    ResultsResponse,
    RunNowRequest,
    StoreSearchRequest,
    StoreSearchResponse,
    TaskCreated,
    UpdateMonitorRequest,
    monitor_out,
    result_out,
    task_created,
)
from herald.core.dates import (
    DateInput,
    check_order,
    end_instant,
    midnight,
    parse_optional_date_input,
)
from herald.core.pagination import MAX_OFFSET, PageRequest
from herald.errors import FieldIssue, InvalidRequest
from herald.monitors import queries, requests, service
from herald.monitors.match import explained_results, matches
from herald.monitors.ports import monitor_search
from herald.monitors.store_search import build_store_request, search_store, store_ids

router = APIRouter(prefix="/v1/monitors", tags=["monitors"])
DISABLED: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "`monitor_disabled`: the monitor is disabled"}
}

Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]


@router.post("", status_code=201, summary="Create a monitor", response_model_exclude_unset=True)
def create_monitor(
    body: CreateMonitorRequest, principal: PrincipalDep, runtime: RuntimeDep
) -> MonitorOut:
    with runtime.sessions.write() as session:
        monitor = service.create_monitor(
            session,
            team_id=principal.team_id,
            name=body.name,
            search=body.search,
            schedule=body.schedule,
            description=body.description,
            status=body.status,
            clock=runtime.clock,
            max_monitors=runtime.settings.max_monitors_per_workspace,
        )
        return monitor_out(monitor)


@router.get("", summary="List monitors, newest first", response_model_exclude_unset=True)
def list_monitors(
    principal: PrincipalDep,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Offset = 0,
    status: Literal["active", "disabled"] | None = None,
) -> MonitorList:
    page_request = PageRequest.checked(limit, offset, max_limit=100)
    with runtime.sessions.read() as session:
        page = service.list_monitors(
            session, team_id=principal.team_id, status=status, page=page_request
        )
        monitors = [monitor_out(m) for m in page.items]
    return MonitorList(
        monitors=monitors,
        limit=page.limit,
        offset=page.offset,
        next_offset=page.next_offset,
        has_more=page.has_more,
        meta=current_meta(),
    )


@router.get("/{monitor_id}", summary="Get a monitor", response_model_exclude_unset=True)
def get_monitor(monitor_id: str, principal: PrincipalDep, runtime: RuntimeDep) -> MonitorOut:
    with runtime.sessions.read() as session:
        return monitor_out(
            service.get_monitor(session, team_id=principal.team_id, monitor_id=monitor_id)
        )


@router.patch(
    "/{monitor_id}",
    summary="Change a monitor's name or schedule",
    response_model_exclude_unset=True,
)
def update_monitor(
    monitor_id: str, body: UpdateMonitorRequest, principal: PrincipalDep, runtime: RuntimeDep
) -> MonitorOut:
    with runtime.sessions.write() as session:
        monitor = service.update_monitor(
            session,
            team_id=principal.team_id,
            monitor_id=monitor_id,
            changes=body.model_dump(exclude_unset=True),
            clock=runtime.clock,
        )
        return monitor_out(monitor)


@router.delete(
    "/{monitor_id}", summary="Disable a monitor permanently", response_model_exclude_unset=True
)
def delete_monitor(monitor_id: str, principal: PrincipalDep, runtime: RuntimeDep) -> MonitorOut:
    with runtime.sessions.write() as session:
        monitor = service.disable_monitor(
            session, team_id=principal.team_id, monitor_id=monitor_id, clock=runtime.clock
        )
        return monitor_out(monitor)


@router.post(
    "/{monitor_id}/run",
    status_code=202,
    summary="Queue a run now: today (UTC) and the trailing three days",
    description=(
        "Queues the same dates a scheduled run would. Each dated job that captures new results "
        "sends `monitor.results.added`; one that fails for good sends `monitor.run.failed`; "
        "when the whole task finishes it sends `monitor.backfill.completed` (scheduled runs "
        "never send that one)."
    ),
    responses=DISABLED,
    response_model_exclude_unset=True,
)
def run_now(
    monitor_id: str,
    principal: PrincipalDep,
    runtime: RuntimeDep,
    # An optional body with a plain schema (not `anyOf: [RunNowRequest, null]`, which generated
    # clients cannot send): no body and `{}` are the same.
    body: Annotated[RunNowRequest, Body()] = RunNowRequest(),  # noqa: B008 (empty, immutable)
) -> TaskCreated:
    with runtime.sessions.write() as session:
        task = requests.run_now(
            session,
            team_id=principal.team_id,
            monitor_id=monitor_id,
            clock=runtime.clock,
            max_queued=runtime.settings.max_queued_backfill_dates,
        )
    return task_created(task, current_meta())


@router.post(
    "/{monitor_id}/backfills",
    status_code=202,
    summary="Queue dated jobs for given UTC published dates",
    description=(
        "Each dated job that captures new results sends `monitor.results.added`; one that "
        "fails for good sends `monitor.run.failed`; when the whole task finishes (at once if "
        "it queued nothing) it sends `monitor.backfill.completed`."
    ),
    responses=DISABLED,
    response_model_exclude_unset=True,
)
def backfill(
    monitor_id: str, body: BackfillRequest, principal: PrincipalDep, runtime: RuntimeDep
) -> TaskCreated:
    with runtime.sessions.write() as session:
        task = requests.request_backfill(
            session,
            team_id=principal.team_id,
            monitor_id=monitor_id,
            dates=body.dates,
            skip_complete=body.skip_complete,
            clock=runtime.clock,
            max_queued=runtime.settings.max_queued_backfill_dates,
            retention_days=runtime.settings.retention_days,
        )
    return task_created(task, current_meta())


def _ledger_date(value: str | None, field: str) -> DateInput | None:
    if value is None:
        return None
    try:
        if len(value) != 10:
            raise ValueError(value)
        return DateInput(midnight(date.fromisoformat(value)), date_only=True, field=field)
    except ValueError:
        raise InvalidRequest(
            f"{field} must be a UTC date YYYY-MM-DD",
            details=[FieldIssue(field, "must be YYYY-MM-DD")],
        ) from None


@router.get(
    "/{monitor_id}/backfills", summary="The per-date ledger", response_model_exclude_unset=True
)
def ledger(
    monitor_id: str,
    principal: PrincipalDep,
    runtime: RuntimeDep,
    start_date: DayText | None = None,
    end_date: DayText | None = None,
    status: Literal["running", "succeeded", "failed", "skipped"] | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> LedgerResponse:
    page_request = PageRequest.checked(limit, offset, max_limit=200)
    start, end = _ledger_date(start_date, "start_date"), _ledger_date(end_date, "end_date")
    check_order(start, end)
    with runtime.sessions.read() as session:
        service.get_monitor(session, team_id=principal.team_id, monitor_id=monitor_id)
        view = queries.ledger_page(
            session,
            monitor_id=monitor_id,
            start_date=start.utc_date if start else None,
            end_date=end.utc_date if end else None,
            status=status,
            page=page_request,
        )
    return LedgerResponse(
        monitor_id=monitor_id,
        backfills=[ledger_entry_out(e) for e in view.page.items],
        summary=ledger_summary_out(view.summary),
        limit=view.page.limit,
        offset=view.page.offset,
        next_offset=view.page.next_offset,
        has_more=view.page.has_more,
        meta=current_meta(),
    )


@router.get(
    "/{monitor_id}/backfills/{task_id}",
    summary="A task and its dated jobs",
    response_model_exclude_unset=True,
)
def task(
    monitor_id: str, task_id: str, principal: PrincipalDep, runtime: RuntimeDep
) -> TaskResponse:
    with runtime.sessions.read() as session:
        service.get_monitor(session, team_id=principal.team_id, monitor_id=monitor_id)
        view = queries.task_view(session, monitor_id=monitor_id, task_id=task_id)
    parent = view.parent
    return TaskResponse(
        task_id=parent.id,
        monitor_id=parent.monitor_id,
        kind=parent.kind,
        status=parent.status,
        created_at=parent.created_at,
        started_at=parent.started_at,
        finished_at=parent.finished_at,
        summary=task_summary_out(view.summary),
        tasks=[task_child_out(child) for child in view.children],
        meta=current_meta(),
    )


@router.get("/{monitor_id}/runs", summary="Runs, newest first", response_model_exclude_unset=True)
def runs(
    monitor_id: str,
    principal: PrincipalDep,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Offset = 0,
) -> RunsResponse:
    page_request = PageRequest.checked(limit, offset, max_limit=100)
    with runtime.sessions.read() as session:
        service.get_monitor(session, team_id=principal.team_id, monitor_id=monitor_id)
        page, totals = queries.runs_page(session, monitor_id=monitor_id, page=page_request)
    return RunsResponse(
        monitor_id=monitor_id,
        runs=[run_out(run, totals) for run in page.items],
        limit=page.limit,
        offset=page.offset,
        next_offset=page.next_offset,
        has_more=page.has_more,
        meta=current_meta(),
    )


@router.get(
    "/{monitor_id}/results",
    summary="Captured results, newest first",
    response_model_exclude_unset=True,
)
def results(
    monitor_id: str,
    principal: PrincipalDep,
    runtime: RuntimeDep,
    start_date: DateText | None = None,
    end_date: DateText | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Offset = 0,
    explain: Annotated[
        bool, Query(description="Add `match` evidence (why each item matched) to each result.")
    ] = False,
) -> ResultsResponse:
    page_request = PageRequest.checked(limit, offset, max_limit=100)
    start = parse_optional_date_input(start_date, field="start_date")
    end = parse_optional_date_input(end_date, field="end_date")
    check_order(start, end)
    with runtime.sessions.read() as session:
        monitor = service.get_monitor(session, team_id=principal.team_id, monitor_id=monitor_id)
        page = queries.results_page(
            session,
            monitor_id=monitor_id,
            start=start.instant if start else None,
            end=end_instant(end) if end else None,
            page=page_request,
        )
        items = [result_out(r, search_form(r.item)) for r in page.items]
        if explain:
            found = explained_results(session, monitor_search(runtime), monitor, page.items)
            for out, result in zip(items, page.items, strict=True):
                out.match = MatchOut.model_validate(found[result.item.id])
    return ResultsResponse(
        monitor_id=monitor_id,
        results=items,
        limit=page.limit,
        offset=page.offset,
        next_offset=page.next_offset,
        has_more=page.has_more,
        meta=current_meta(),
    )


@router.post(
    "/{monitor_id}/search",
    summary="Search within the monitor's result store",
    response_model_exclude_unset=True,
)
def search(
    monitor_id: str,
    body: StoreSearchRequest,
    principal: PrincipalDep,
    runtime: RuntimeDep,
    clock: ClockDep,
) -> StoreSearchResponse:
    with runtime.sessions.read() as session:
        service.get_monitor(session, team_id=principal.team_id, monitor_id=monitor_id)
        within = store_ids(session, monitor_id=monitor_id)
        request = build_store_request(
            query=body.query,
            start_date=body.start_date,
            end_date=body.end_date,
            media_types=body.media_types,
            include_domains=body.include_domains,
            exclude_domains=body.exclude_domains,
            entity_ids=body.entity_ids,
            limit=body.limit,
            clock=clock,
            within=within,
        )
        hits = (
            search_store(session, monitor_search(runtime), monitor_id=monitor_id, request=request)
            if within
            else []
        )
        out = [SearchResult(score=h.score, content_item=search_form(h.item)) for h in hits]
        if body.explain:
            found = matches(
                session,
                [h.item for h in hits],
                query=body.query,
                entity_ids=body.entity_ids or [],
                features={h.item.id: h.features for h in hits},
            )
            for result, hit in zip(out, hits, strict=True):
                result.match = MatchOut.model_validate(found[hit.item.id])
    return StoreSearchResponse(results=out, meta=current_meta())
