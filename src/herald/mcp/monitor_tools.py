"""The tools of the workspace's monitors: list, create, run, read and search their results."""

from __future__ import annotations

from typing import Annotated, Any, cast

import herald_client
from herald_client.models import MediaType, MonitorStatus
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from herald.mcp import results
from herald.mcp.arguments import (
    READ_ONLY,
    EndDate,
    EntityIds,
    ExcludeDomains,
    IncludeDomains,
    MediaTypes,
    MonitorId,
    Offset,
    Query,
    SearchLimit,
    StartDate,
)
from herald.mcp.reads import lookup_urls, scored_items
from herald.mcp.replies import Runner


def register_monitor_tools(server: MCPServer[Any], run: Runner) -> None:
    @server.tool(annotations=READ_ONLY)
    async def list_monitors(
        ctx: Context[Any, Any],
        status: Annotated[
            str | None, Field(description='Only "active" or only "disabled" monitors.')
        ] = None,
        limit: Annotated[
            int | None, Field(description="Monitors per page, 1-100 (default 50).")
        ] = None,
        offset: Offset = None,
    ) -> CallToolResult:
        """The workspace's monitors (saved searches that run on a schedule), newest first:
        id, name, status, saved search, schedule and next run."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            listed = await client.monitors.list(
                limit=limit, offset=offset, status=cast("MonitorStatus | None", status)
            )
            monitors = [results.monitor(m) for m in listed.monitors]
            return results.page("monitors", monitors, listed.next_offset)

        return await run(ctx, action)

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
    async def create_monitor(
        ctx: Context[Any, Any],
        name: Annotated[str, Field(description="A short display name.")],
        query: Annotated[str, Field(description="The standing query the monitor searches for.")],
        media_types: MediaTypes = None,
        include_domains: IncludeDomains = None,
        exclude_domains: ExcludeDomains = None,
        entity_ids: EntityIds = None,
        description: Annotated[str | None, Field(description="What it is for.")] = None,
        frequency: Annotated[
            str | None, Field(description='"hourly" (default) or "daily".')
        ] = None,
        timezone: Annotated[
            str | None, Field(description="IANA time zone of the schedule (default UTC).")
        ] = None,
        minute: Annotated[
            int | None, Field(description="Hourly: the minute of the hour it runs, 0-59.")
        ] = None,
        run_time: Annotated[
            str | None, Field(description="Daily: the local time it runs, HH:MM.")
        ] = None,
    ) -> CallToolResult:
        """Create a monitor: a saved search that runs hourly or daily and collects matching
        content into its results (read them with monitor_results). The search cannot be
        changed later. Use run_monitor to fill it at once."""
        schedule = results.compact(
            {"frequency": frequency, "timezone": timezone, "minute": minute, "run_time": run_time}
        )
        search = results.compact(
            {
                "query": query,
                "media_types": media_types,
                "include_domains": include_domains,
                "exclude_domains": exclude_domains,
                "entity_ids": entity_ids,
            }
        )

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            created = await client.monitors.create(
                name=name, search=search, description=description, schedule=schedule or None
            )
            return results.monitor(created)

        return await run(ctx, action)

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
    async def run_monitor(ctx: Context[Any, Any], monitor_id: MonitorId) -> CallToolResult:
        """Queue a monitor's run now: today's and the three previous UTC days' content is
        searched in the background; results appear in monitor_results within moments."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            return results.queued_task(await client.monitors.run(monitor_id))

        return await run(ctx, action)

    @server.tool(annotations=READ_ONLY)
    async def monitor_results(
        ctx: Context[Any, Any],
        monitor_id: MonitorId,
        start_date: Annotated[
            str | None, Field(description="Items published from this date (YYYY-MM-DD).")
        ] = None,
        end_date: Annotated[
            str | None, Field(description="Items published up to this date, inclusive.")
        ] = None,
        limit: Annotated[
            int | None, Field(description="Items per page, 1-100 (default 50).")
        ] = None,
        offset: Offset = None,
    ) -> CallToolResult:
        """What a monitor has collected, newest published first: id, title, url, source, date
        and key points of each item, and when it was captured."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            listed = await client.monitors.results(
                monitor_id, start_date=start_date, end_date=end_date, limit=limit, offset=offset
            )
            urls = await lookup_urls(client, [r.content_item.id for r in listed.results])
            items = [
                results.listed_item(r.content_item, urls.get(r.content_item.id))
                | {"captured": results.when(r.first_captured_at)}
                for r in listed.results
            ]
            return {"monitor_id": listed.monitor_id} | results.page(
                "results", items, listed.next_offset
            )

        return await run(ctx, action)

    @server.tool(annotations=READ_ONLY)
    async def search_monitor_results(
        ctx: Context[Any, Any],
        monitor_id: MonitorId,
        query: Query,
        start_date: StartDate = None,
        end_date: EndDate = None,
        media_types: MediaTypes = None,
        include_domains: IncludeDomains = None,
        exclude_domains: ExcludeDomains = None,
        entity_ids: EntityIds = None,
        limit: SearchLimit = None,
    ) -> CallToolResult:
        """Search only what one monitor has collected (same filters and result form as
        search_content)."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            found = await client.monitors.search(
                monitor_id,
                query=query,
                start_date=start_date,
                end_date=end_date,
                media_types=cast("list[MediaType] | None", media_types),
                include_domains=include_domains,
                exclude_domains=exclude_domains,
                entity_ids=entity_ids,
                limit=limit,
            )
            return await scored_items(client, found.results)

        return await run(ctx, action)
