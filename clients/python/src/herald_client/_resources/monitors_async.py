"""``AsyncClient.monitors``: the asynchronous twin of ``client.monitors``."""

from __future__ import annotations

from collections.abc import Sequence

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
from herald_client._pagination import AsyncPager
from herald_client._resources._base import (
    AsyncResource,
    MediaType,
    checked,
    next_offset,
)
from herald_client._resources.content import search_request
from herald_client._resources.monitor_requests import (
    ScheduleInput,
    SearchInput,
    backfill_body,
    create_body,
    entries_of,
    ledger_query,
    list_query,
    monitors_of,
    path_ids,
    preview_body,
    results_of,
    results_query,
    runs_of,
    store_body,
    update_body,
)
from herald_client.models import (
    BackfillLedger,
    BackfillTask,
    ContentSearchResponse,
    LedgerEntry,
    Monitor,
    MonitorFeed,
    MonitorFeedRevoked,
    MonitorList,
    MonitorPreview,
    MonitorResult,
    MonitorResultList,
    MonitorRun,
    MonitorRunList,
    QueuedTask,
    RunsQuery,
)
from herald_client.models._base import DateInput
from herald_client.models._enums import LedgerStatus, MonitorStatus

__all__ = ["AsyncMonitors"]


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
        body = create_body(name, search, description, schedule, status)
        return await self._client._request(MONITORS_CREATE, body=body)

    async def list(
        self,
        *,
        limit: int | None = None,
        offset: int | None = None,
        status: MonitorStatus | None = None,
    ) -> MonitorList:
        return await self._client._request(MONITORS_LIST, query=list_query(limit, offset, status))

    def list_all(
        self, *, status: MonitorStatus | None = None, page_size: int | None = None
    ) -> AsyncPager[MonitorList, Monitor]:
        async def fetch(offset: int) -> MonitorList:
            return await self.list(limit=page_size, offset=offset, status=status)

        return AsyncPager(fetch, monitors_of, next_offset, 0)

    async def get(self, monitor_id: str) -> Monitor:
        return await self._client._request(MONITORS_GET, path_params=path_ids(monitor_id))

    async def update(
        self, monitor_id: str, *, name: str | None = None, schedule: ScheduleInput | None = None
    ) -> Monitor:
        body = update_body(name, schedule)
        return await self._client._request(
            MONITORS_UPDATE, path_params=path_ids(monitor_id), body=body
        )

    async def delete(self, monitor_id: str) -> Monitor:
        return await self._client._request(MONITORS_DELETE, path_params=path_ids(monitor_id))

    async def run(self, monitor_id: str) -> QueuedTask:
        return await self._client._request(MONITORS_RUN, path_params=path_ids(monitor_id))

    async def backfill(
        self,
        monitor_id: str,
        *,
        dates: Sequence[DateInput],
        skip_complete: bool | None = None,
    ) -> QueuedTask:
        body = backfill_body(dates, skip_complete)
        return await self._client._request(
            MONITORS_BACKFILL, path_params=path_ids(monitor_id), body=body
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
        query = ledger_query(start_date, end_date, status, limit, offset)
        return await self._client._request(
            MONITORS_LEDGER, path_params=path_ids(monitor_id), query=query
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

        return AsyncPager(fetch, entries_of, next_offset, 0)

    async def task(self, monitor_id: str, task_id: str) -> BackfillTask:
        return await self._client._request(
            MONITORS_TASK, path_params=path_ids(monitor_id, task_id=task_id)
        )

    async def runs(
        self, monitor_id: str, *, limit: int | None = None, offset: int | None = None
    ) -> MonitorRunList:
        query = checked(RunsQuery, {"limit": limit, "offset": offset})
        return await self._client._request(
            MONITORS_RUNS, path_params=path_ids(monitor_id), query=query
        )

    def runs_all(
        self, monitor_id: str, *, page_size: int | None = None
    ) -> AsyncPager[MonitorRunList, MonitorRun]:
        async def fetch(offset: int) -> MonitorRunList:
            return await self.runs(monitor_id, limit=page_size, offset=offset)

        return AsyncPager(fetch, runs_of, next_offset, 0)

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
        query = results_query(start_date, end_date, limit, offset, explain)
        return await self._client._request(
            MONITORS_RESULTS, path_params=path_ids(monitor_id), query=query
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

        return AsyncPager(fetch, results_of, next_offset, 0)

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
            MONITORS_SEARCH, path_params=path_ids(monitor_id), body=store_body(body, explain)
        )

    async def preview(
        self, *, search: SearchInput, days: int | None = None, explain: bool | None = None
    ) -> MonitorPreview:
        return await self._client._request(
            MONITORS_PREVIEW, body=preview_body(search, days, explain)
        )

    async def create_feed(self, monitor_id: str) -> MonitorFeed:
        return await self._client._request(MONITORS_FEED_CREATE, path_params=path_ids(monitor_id))

    async def revoke_feed(self, monitor_id: str) -> MonitorFeedRevoked:
        return await self._client._request(MONITORS_FEED_REVOKE, path_params=path_ids(monitor_id))
