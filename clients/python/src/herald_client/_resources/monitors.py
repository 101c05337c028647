"""``client.monitors``: saved searches with schedules, runs, backfills and result stores."""

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
from herald_client._pagination import Pager
from herald_client._resources._base import (
    MediaType,
    SyncResource,
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

__all__ = ["Monitors"]


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
        body = create_body(name, search, description, schedule, status)
        return self._client._request(MONITORS_CREATE, body=body)

    def list(
        self,
        *,
        limit: int | None = None,
        offset: int | None = None,
        status: MonitorStatus | None = None,
    ) -> MonitorList:
        """One page of the workspace's monitors, newest first (``limit`` default 50)."""
        return self._client._request(MONITORS_LIST, query=list_query(limit, offset, status))

    def list_all(
        self, *, status: MonitorStatus | None = None, page_size: int | None = None
    ) -> Pager[MonitorList, Monitor]:
        """Every monitor of the workspace."""

        def fetch(offset: int) -> MonitorList:
            return self.list(limit=page_size, offset=offset, status=status)

        return Pager(fetch, monitors_of, next_offset, 0)

    def get(self, monitor_id: str) -> Monitor:
        return self._client._request(MONITORS_GET, path_params=path_ids(monitor_id))

    def update(
        self, monitor_id: str, *, name: str | None = None, schedule: ScheduleInput | None = None
    ) -> Monitor:
        """Change the name and/or schedule (PATCH); schedule fields not given are kept."""
        body = update_body(name, schedule)
        return self._client._request(MONITORS_UPDATE, path_params=path_ids(monitor_id), body=body)

    def delete(self, monitor_id: str) -> Monitor:
        """Disable the monitor for good; returns it (``status: disabled``)."""
        return self._client._request(MONITORS_DELETE, path_params=path_ids(monitor_id))

    def run(self, monitor_id: str) -> QueuedTask:
        """Queue a run now: dated jobs for today and the three previous UTC days."""
        return self._client._request(MONITORS_RUN, path_params=path_ids(monitor_id))

    def backfill(
        self,
        monitor_id: str,
        *,
        dates: Sequence[DateInput],
        skip_complete: bool | None = None,
    ) -> QueuedTask:
        """Queue dated jobs for up to 100 UTC published dates (``date`` or ``"YYYY-MM-DD"``)."""
        body = backfill_body(dates, skip_complete)
        return self._client._request(MONITORS_BACKFILL, path_params=path_ids(monitor_id), body=body)

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
        query = ledger_query(start_date, end_date, status, limit, offset)
        return self._client._request(MONITORS_LEDGER, path_params=path_ids(monitor_id), query=query)

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

        return Pager(fetch, entries_of, next_offset, 0)

    def task(self, monitor_id: str, task_id: str) -> BackfillTask:
        """A parent task (run-now, backfill or scheduled run) and its dated jobs."""
        return self._client._request(
            MONITORS_TASK, path_params=path_ids(monitor_id, task_id=task_id)
        )

    def runs(
        self, monitor_id: str, *, limit: int | None = None, offset: int | None = None
    ) -> MonitorRunList:
        query = checked(RunsQuery, {"limit": limit, "offset": offset})
        return self._client._request(MONITORS_RUNS, path_params=path_ids(monitor_id), query=query)

    def runs_all(
        self, monitor_id: str, *, page_size: int | None = None
    ) -> Pager[MonitorRunList, MonitorRun]:
        def fetch(offset: int) -> MonitorRunList:
            return self.runs(monitor_id, limit=page_size, offset=offset)

        return Pager(fetch, runs_of, next_offset, 0)

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
        query = results_query(start_date, end_date, limit, offset, explain)
        return self._client._request(
            MONITORS_RESULTS, path_params=path_ids(monitor_id), query=query
        )

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

        return Pager(fetch, results_of, next_offset, 0)

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
            MONITORS_SEARCH, path_params=path_ids(monitor_id), body=store_body(body, explain)
        )

    def preview(
        self, *, search: SearchInput, days: int | None = None, explain: bool | None = None
    ) -> MonitorPreview:
        """What a monitor with this saved search would capture per published date over the last
        ``days`` UTC days (1-30, default 7), with the best items and scores; saves nothing.
        ``explain=True`` adds ``match`` (why each item matched)."""
        return self._client._request(MONITORS_PREVIEW, body=preview_body(search, days, explain))

    def create_feed(self, monitor_id: str) -> MonitorFeed:
        """Publish the results as Atom; ``feed_url`` is shown only now. Again: a new URL."""
        return self._client._request(MONITORS_FEED_CREATE, path_params=path_ids(monitor_id))

    def revoke_feed(self, monitor_id: str) -> MonitorFeedRevoked:
        """Stop publishing the feed (its URL answers 404 from now on)."""
        return self._client._request(MONITORS_FEED_REVOKE, path_params=path_ids(monitor_id))
