"""The tools that read content, entities and stories."""

from __future__ import annotations

from typing import Annotated, Any, cast

import herald_client
from herald_client.models import EntityKind, MediaType
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from herald.mcp import results
from herald.mcp.arguments import (
    READ_ONLY,
    EndDate,
    EntityIds,
    ExcludeDomains,
    IncludeDomains,
    MediaTypes,
    Offset,
    Query,
    SearchLimit,
    StartDate,
    id_argument,
)
from herald.mcp.reads import STORY_MEMBERS_DEFAULT, lookup_urls, scored_items, story_detail
from herald.mcp.replies import Runner


def register_content_tools(server: MCPServer[Any], run: Runner) -> None:
    @server.tool(annotations=READ_ONLY)
    async def search_content(
        ctx: Context[Any, Any],
        query: Query,
        start_date: StartDate = None,
        end_date: EndDate = None,
        media_types: MediaTypes = None,
        include_domains: IncludeDomains = None,
        exclude_domains: ExcludeDomains = None,
        entity_ids: EntityIds = None,
        limit: SearchLimit = None,
    ) -> CallToolResult:
        """Search the user's news, wire and podcast content; best match first. Each result has
        the item's id, title, url, source, date, score and key points (no full text: call
        get_content for one item's summary and entities). The window is the last 60 days unless
        start_date and end_date (at most 60 days apart) say otherwise."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            found = await client.content.search(
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

    @server.tool(annotations=READ_ONLY)
    async def get_content(
        ctx: Context[Any, Any],
        content_id: Annotated[str, id_argument("The item's id (cnt_...).")],
    ) -> CallToolResult:
        """One content item in detail: url, authors, summary, key points, linked entities (ids
        for entity_timeline), its story id (for get_story) and podcast segments. Never the full
        article text or transcript."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            return results.full_item(await client.content.get(content_id))

        return await run(ctx, action)

    @server.tool(annotations=READ_ONLY)
    async def search_entities(
        ctx: Context[Any, Any],
        query: Annotated[str, Field(description="A name, alias or description words.")],
        entity_kinds: Annotated[
            list[str] | None,
            Field(
                description='Only these kinds: any of "person", "company", "organization", '
                '"product", "place", "event".'
            ),
        ] = None,
        limit: SearchLimit = None,
    ) -> CallToolResult:
        """Find people, companies, organizations, products, places and events by name. Use the
        id (ent_...) with entity_timeline, or as entity_ids in search_content and
        create_monitor to follow that exact entity rather than a name that may be ambiguous."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            found = await client.entities.search(
                query=query,
                entity_kinds=cast("list[EntityKind] | None", entity_kinds),
                limit=limit,
            )
            return {"results": [results.entity(r.entity, r.score) for r in found.results]}

        return await run(ctx, action)

    @server.tool(annotations=READ_ONLY)
    async def entity_timeline(
        ctx: Context[Any, Any],
        entity_id: Annotated[str, id_argument("The entity's id (ent_...).")],
        start_date: StartDate = None,
        end_date: EndDate = None,
        media_types: MediaTypes = None,
        limit: Annotated[
            int | None, Field(description="Items per page, 1-100 (default 25).")
        ] = None,
        offset: Offset = None,
    ) -> CallToolResult:
        """The content that mentions one entity, newest first (default: the last 60 days):
        id, title, url, source and date of each item, and next_offset when more pages follow."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            timeline = await client.entities.timeline(
                entity_id,
                start_date=start_date,
                end_date=end_date,
                media_types=cast("list[MediaType] | None", media_types),
                limit=limit,
                offset=offset,
            )
            urls = await lookup_urls(client, [t.id for t in timeline.timeline])
            items = [results.timeline_item(t, urls.get(t.id)) for t in timeline.timeline]
            return {"entity_id": timeline.entity_id} | results.page(
                "items", items, timeline.next_offset
            )

        return await run(ctx, action)

    @server.tool(annotations=READ_ONLY)
    async def list_stories(
        ctx: Context[Any, Any],
        start_date: Annotated[
            str | None,
            Field(description="Stories created from this date (YYYY-MM-DD or ISO datetime)."),
        ] = None,
        end_date: Annotated[
            str | None, Field(description="Stories created up to this date, inclusive.")
        ] = None,
        limit: Annotated[
            int | None, Field(description="Stories per page, 1-100 (default 25).")
        ] = None,
        offset: Offset = None,
    ) -> CallToolResult:
        """The news stories: clusters of articles from several sources about one event, newest
        first (default: created in the last 7 days). Each has an id, title, abstract, member
        and source counts and key entities; get_story lists a story's articles."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            listed = await client.clusters.list(
                start_date=start_date, end_date=end_date, limit=limit, offset=offset
            )
            stories = [results.story(c) for c in listed.clusters]
            return results.page("stories", stories, listed.next_offset)

        return await run(ctx, action)

    @server.tool(annotations=READ_ONLY)
    async def get_story(
        ctx: Context[Any, Any],
        story_id: Annotated[str, id_argument("The story's id (clu_...).")],
        member_limit: Annotated[
            int,
            Field(ge=1, le=500, description="How many of its articles to list, newest first."),
        ] = STORY_MEMBERS_DEFAULT,
    ) -> CallToolResult:
        """One story and its articles (id, title, url, source, date, key points), newest
        first, to brief on it or cite its sources."""

        async def action(client: herald_client.AsyncClient) -> dict[str, Any]:
            return await story_detail(client, story_id, member_limit)

        return await run(ctx, action)
