"""``client.monitors``: saved searches with schedules, runs, backfills and result stores."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from herald_client._endpoints import (
    MONITORS_BACKFILL,
    MONITORS_CREATE,
    MONITORS_DELETE,
    MONITORS_FEED_CREATE,
    MONITORS_FEED_REVOKE,
    MONITORS_GET,
    MONITORS_LEDGER,
    MONITORS_LIST,
    MONITORS_PREVIEW,
    MONITORS_RESULTS,
    MONITORS_RUN,
    MONITORS_RUNS,
    MONITORS_SEARCH,
    MONITORS_TASK,
    MONITORS_UPDATE,
)
from herald_client._pagination import AsyncPager, Pager
from herald_client._resources._base import (
    AsyncResource,
    MediaType,
    SyncResource,
    checked,
    next_offset,
)
from herald_client._resources.content import search_request
from herald_client.models import (
    BackfillLedger,
    BackfillRequest,
    BackfillTask,
    ContentSearchResponse,
    LedgerEntry,
    LedgerQuery,
    Monitor,
    MonitorCreateRequest,
    MonitorFeed,
    MonitorFeedRevoked,
    MonitorList,
    MonitorListQuery,
    MonitorPreview,
    MonitorPreviewRequest,
    MonitorResult,
    MonitorResultList,
    MonitorRun,
    MonitorRunList,
    MonitorSearchParams,
    MonitorStoreSearchRequest,
    MonitorUpdateRequest,
    QueuedTask,
    ResultsQuery,
    RunsQuery,
    ScheduleParams,
)
from herald_client.models._base import DateInput
from herald_client.models._enums import LedgerStatus, MonitorStatus

__all__ = ["AsyncMonitors", "Monitors"]

SearchInput = MonitorSearchParams | Mapping[str, Any]
ScheduleInput = ScheduleParams | Mapping[str, Any]


def _create_body(
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


def _update_body(name: str | None, schedule: ScheduleInput | None) -> MonitorUpdateRequest:
    return checked(MonitorUpdateRequest, {"name": name, "schedule": schedule})


def _list_query(
    limit: int | None, offset: int | None, status: MonitorStatus | None
) -> MonitorListQuery:
    return checked(MonitorListQuery, {"limit": limit, "offset": offset, "status": status})


def _ledger_query(
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


def _results_query(
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


def _backfill_body(dates: Sequence[DateInput], skip_complete: bool | None) -> BackfillRequest:
    return checked(BackfillRequest, {"dates": dates, "skip_complete": skip_complete})


def _monitors(page: MonitorList) -> builtins.list[Monitor]:
    return page.monitors


def _entries(page: BackfillLedger) -> builtins.list[LedgerEntry]:
    return page.backfills


def _runs(page: MonitorRunList) -> builtins.list[MonitorRun]:
    return page.runs


def _results(page: MonitorResultList) -> builtins.list[MonitorResult]:
    return page.results


def _preview_body(
    search: SearchInput, days: int | None, explain: bool | None
) -> MonitorPreviewRequest:
    return checked(MonitorPreviewRequest, {"search": search, "days": days, "explain": explain})


def _store_body(body: BaseModel, explain: bool | None) -> MonitorStoreSearchRequest:
    return checked(MonitorStoreSearchRequest, {**body.model_dump(), "explain": explain})


def _ids(monitor_id: str, **more: str) -> dict[str, str | int]:
    return {"monitor_id": monitor_id, **more}


class Monitors(SyncResource):
    def create(
        self,
        *,
        name: str,
        search: SearchInput,
        description: str | None = None,
        schedule: ScheduleInput | None = None,
        status: MonitorStatus | None = None,
    ) -> Monitor:
        """Create a monitor. ``search``: ``{"query": ..., "media_types": [...], ...}`` (no
        window or limit). ``schedule``: ``{"frequency": "daily", "timezone": ..., "run_time":
        "06:30"}`` or hourly with ``minute``; by default hourly in UTC at the creation minute."""
        body = _create_body(name, search, description, schedule, status)
        return self._client._request(MONITORS_CREATE, body=body)

    def list(
        self,
        *,
        limit: int | None = None,
        offset: int | None = None,
        status: MonitorStatus | None = None,
    ) -> MonitorList:
        """One page of the workspace's monitors, newest first (``limit`` default 50)."""
        return self._client._request(MONITORS_LIST, query=_list_query(limit, offset, status))

    def list_all(
        self, *, status: MonitorStatus | None = None, page_size: int | None = None
    ) -> Pager[MonitorList, Monitor]:
        """Every monitor of the workspace."""

        def fetch(offset: int) -> MonitorList:
            return self.list(limit=page_size, offset=offset, status=status)

        return Pager(fetch, _monitors, next_offset, 0)

    def get(self, monitor_id: str) -> Monitor:
        return self._client._request(MONITORS_GET, path_params=_ids(monitor_id))

    def update(
        self, monitor_id: str, *, name: str | None = None, schedule: ScheduleInput | None = None
    ) -> Monitor:
        """Change the name and/or schedule (PATCH); schedule fields not given are kept."""
        body = _update_body(name, schedule)
        return self._client._request(MONITORS_UPDATE, path_params=_ids(monitor_id), body=body)

    def delete(self, monitor_id: str) -> Monitor:
        """Disable the monitor for good; returns it (``status: disabled``)."""
        return self._client._request(MONITORS_DELETE, path_params=_ids(monitor_id))

    def run(self, monitor_id: str) -> QueuedTask:
        """Queue a run now: dated jobs for today and the three previous UTC days."""
        return self._client._request(MONITORS_RUN, path_params=_ids(monitor_id))

    def backfill(
        self,
        monitor_id: str,
        *,
        dates: Sequence[DateInput],
        skip_complete: bool | None = None,
    ) -> QueuedTask:
        """Queue dated jobs for up to 100 UTC published dates (``date`` or ``"YYYY-MM-DD"``)."""
        body = _backfill_body(dates, skip_complete)
        return self._client._request(MONITORS_BACKFILL, path_params=_ids(monitor_id), body=body)

    def ledger(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        status: LedgerStatus | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> BackfillLedger:
        """One page of the per-date ledger, newest date first (``limit`` at most 200)."""
        query = _ledger_query(start_date, end_date, status, limit, offset)
        return self._client._request(MONITORS_LEDGER, path_params=_ids(monitor_id), query=query)

    def ledger_all(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        status: LedgerStatus | None = None,
        page_size: int | None = None,
    ) -> Pager[BackfillLedger, LedgerEntry]:
        def fetch(offset: int) -> BackfillLedger:
            return self.ledger(
                monitor_id,
                start_date=start_date,
                end_date=end_date,
                status=status,
                limit=page_size,
                offset=offset,
            )

        return Pager(fetch, _entries, next_offset, 0)

    def task(self, monitor_id: str, task_id: str) -> BackfillTask:
        """A parent task (run-now, backfill or scheduled run) and its dated jobs."""
        return self._client._request(MONITORS_TASK, path_params=_ids(monitor_id, task_id=task_id))

    def runs(
        self, monitor_id: str, *, limit: int | None = None, offset: int | None = None
    ) -> MonitorRunList:
        query = checked(RunsQuery, {"limit": limit, "offset": offset})
        return self._client._request(MONITORS_RUNS, path_params=_ids(monitor_id), query=query)

    def runs_all(
        self, monitor_id: str, *, page_size: int | None = None
    ) -> Pager[MonitorRunList, MonitorRun]:
        def fetch(offset: int) -> MonitorRunList:
            return self.runs(monitor_id, limit=page_size, offset=offset)

        return Pager(fetch, _runs, next_offset, 0)

    def results(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        limit: int | None = None,
        offset: int | None = None,
        explain: bool | None = None,
    ) -> MonitorResultList:
        """One page of captured results, newest published first (bounds inclusive)."""
        query = _results_query(start_date, end_date, limit, offset, explain)
        return self._client._request(MONITORS_RESULTS, path_params=_ids(monitor_id), query=query)

    def results_all(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        page_size: int | None = None,
    ) -> Pager[MonitorResultList, MonitorResult]:
        def fetch(offset: int) -> MonitorResultList:
            return self.results(
                monitor_id,
                start_date=start_date,
                end_date=end_date,
                limit=page_size,
                offset=offset,
            )

        return Pager(fetch, _results, next_offset, 0)

    def search(
        self,
        monitor_id: str,
        *,
        query: str,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        include_domains: Sequence[str] | None = None,
        exclude_domains: Sequence[str] | None = None,
        entity_ids: Sequence[str] | None = None,
        limit: int | None = None,
        explain: bool | None = None,
    ) -> ContentSearchResponse:
        """Search within the monitor's result store (same rules as ``content.search``)."""
        body = search_request(
            query,
            start_date,
            end_date,
            media_types,
            include_domains,
            exclude_domains,
            entity_ids,
            limit,
        )
        return self._client._request(
            MONITORS_SEARCH, path_params=_ids(monitor_id), body=_store_body(body, explain)
        )

    def preview(
        self, *, search: SearchInput, days: int | None = None, explain: bool | None = None
    ) -> MonitorPreview:
        """What a monitor with this saved search would capture per published date over the last
        ``days`` UTC days (1-30, default 7), with the best items and scores; saves nothing.
        ``explain=True`` adds ``match`` (why each item matched)."""
        return self._client._request(MONITORS_PREVIEW, body=_preview_body(search, days, explain))

    def create_feed(self, monitor_id: str) -> MonitorFeed:
        """Publish the results as Atom; ``feed_url`` is shown only now. Again: a new URL."""
        return self._client._request(MONITORS_FEED_CREATE, path_params=_ids(monitor_id))

    def revoke_feed(self, monitor_id: str) -> MonitorFeedRevoked:
        """Stop publishing the feed (its URL answers 404 from now on)."""
        return self._client._request(MONITORS_FEED_REVOKE, path_params=_ids(monitor_id))


class AsyncMonitors(AsyncResource):
    async def create(
        self,
        *,
        name: str,
        search: SearchInput,
        description: str | None = None,
        schedule: ScheduleInput | None = None,
        status: MonitorStatus | None = None,
    ) -> Monitor:
        """See ``Monitors.create``."""
        body = _create_body(name, search, description, schedule, status)
        return await self._client._request(MONITORS_CREATE, body=body)

    async def list(
        self,
        *,
        limit: int | None = None,
        offset: int | None = None,
        status: MonitorStatus | None = None,
    ) -> MonitorList:
        return await self._client._request(MONITORS_LIST, query=_list_query(limit, offset, status))

    def list_all(
        self, *, status: MonitorStatus | None = None, page_size: int | None = None
    ) -> AsyncPager[MonitorList, Monitor]:
        async def fetch(offset: int) -> MonitorList:
            return await self.list(limit=page_size, offset=offset, status=status)

        return AsyncPager(fetch, _monitors, next_offset, 0)

    async def get(self, monitor_id: str) -> Monitor:
        return await self._client._request(MONITORS_GET, path_params=_ids(monitor_id))

    async def update(
        self, monitor_id: str, *, name: str | None = None, schedule: ScheduleInput | None = None
    ) -> Monitor:
        body = _update_body(name, schedule)
        return await self._client._request(MONITORS_UPDATE, path_params=_ids(monitor_id), body=body)

    async def delete(self, monitor_id: str) -> Monitor:
        return await self._client._request(MONITORS_DELETE, path_params=_ids(monitor_id))

    async def run(self, monitor_id: str) -> QueuedTask:
        return await self._client._request(MONITORS_RUN, path_params=_ids(monitor_id))

    async def backfill(
        self,
        monitor_id: str,
        *,
        dates: Sequence[DateInput],
        skip_complete: bool | None = None,
    ) -> QueuedTask:
        body = _backfill_body(dates, skip_complete)
        return await self._client._request(
            MONITORS_BACKFILL, path_params=_ids(monitor_id), body=body
        )

    async def ledger(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        status: LedgerStatus | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> BackfillLedger:
        query = _ledger_query(start_date, end_date, status, limit, offset)
        return await self._client._request(
            MONITORS_LEDGER, path_params=_ids(monitor_id), query=query
        )

    def ledger_all(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        status: LedgerStatus | None = None,
        page_size: int | None = None,
    ) -> AsyncPager[BackfillLedger, LedgerEntry]:
        async def fetch(offset: int) -> BackfillLedger:
            return await self.ledger(
                monitor_id,
                start_date=start_date,
                end_date=end_date,
                status=status,
                limit=page_size,
                offset=offset,
            )

        return AsyncPager(fetch, _entries, next_offset, 0)

    async def task(self, monitor_id: str, task_id: str) -> BackfillTask:
        return await self._client._request(
            MONITORS_TASK, path_params=_ids(monitor_id, task_id=task_id)
        )

    async def runs(
        self, monitor_id: str, *, limit: int | None = None, offset: int | None = None
    ) -> MonitorRunList:
        query = checked(RunsQuery, {"limit": limit, "offset": offset})
        return await self._client._request(MONITORS_RUNS, path_params=_ids(monitor_id), query=query)

    def runs_all(
        self, monitor_id: str, *, page_size: int | None = None
    ) -> AsyncPager[MonitorRunList, MonitorRun]:
        async def fetch(offset: int) -> MonitorRunList:
            return await self.runs(monitor_id, limit=page_size, offset=offset)

        return AsyncPager(fetch, _runs, next_offset, 0)

    async def results(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        limit: int | None = None,
        offset: int | None = None,
        explain: bool | None = None,
    ) -> MonitorResultList:
        query = _results_query(start_date, end_date, limit, offset, explain)
        return await self._client._request(
            MONITORS_RESULTS, path_params=_ids(monitor_id), query=query
        )

    def results_all(
        self,
        monitor_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        page_size: int | None = None,
    ) -> AsyncPager[MonitorResultList, MonitorResult]:
        async def fetch(offset: int) -> MonitorResultList:
            return await self.results(
                monitor_id,
                start_date=start_date,
                end_date=end_date,
                limit=page_size,
                offset=offset,
            )

        return AsyncPager(fetch, _results, next_offset, 0)

    async def search(
        self,
        monitor_id: str,
        *,
        query: str,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        include_domains: Sequence[str] | None = None,
        exclude_domains: Sequence[str] | None = None,
        entity_ids: Sequence[str] | None = None,
        limit: int | None = None,
        explain: bool | None = None,
    ) -> ContentSearchResponse:
        body = search_request(
            query,
            start_date,
            end_date,
            media_types,
            include_domains,
            exclude_domains,
            entity_ids,
            limit,
        )
        return await self._client._request(
            MONITORS_SEARCH, path_params=_ids(monitor_id), body=_store_body(body, explain)
        )

    async def preview(
        self, *, search: SearchInput, days: int | None = None, explain: bool | None = None
    ) -> MonitorPreview:
        return await self._client._request(
            MONITORS_PREVIEW, body=_preview_body(search, days, explain)
        )

    async def create_feed(self, monitor_id: str) -> MonitorFeed:
        return await self._client._request(MONITORS_FEED_CREATE, path_params=_ids(monitor_id))

    async def revoke_feed(self, monitor_id: str) -> MonitorFeedRevoked:
        return await self._client._request(MONITORS_FEED_REVOKE, path_params=_ids(monitor_id))
