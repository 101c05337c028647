"""The tools, resources and prompt, written once for both transports.

Each tool is one or a few calls of ``herald_client`` on the client its transport hands out; the
API does all validation, so a bad argument comes back as the API's error (its ``error``
code, message and offending fields) in a tool error the model can read and correct its call from.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any, Protocol, cast

import anyio
import herald_client
from herald_client.models import EntityKind, MediaType, MonitorStatus
from mcp import MCPError
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from herald import __version__
from herald.mcp import results

# The SDK logs every request at INFO; Herald's own access log already records the API calls.
logging.getLogger("mcp").setLevel(logging.WARNING)

# Content lookups run at once when a list needs its items' URLs (search forms carry none).
URL_LOOKUPS_AT_ONCE = 8
STORY_MEMBERS_DEFAULT = 20


class ClientSource(Protocol):
    """What a transport provides: the API client one call (tool, resource, prompt) uses."""

    def __call__(
        self, ctx: Context[Any, Any], /
    ) -> AbstractAsyncContextManager[herald_client.AsyncClient]: ...


Action = Callable[[herald_client.AsyncClient], Awaitable[dict[str, Any]]]

INSTRUCTIONS = """\
Herald holds the user's own news, wire and podcast content, enriched with summaries, key points,
linked entities and story clusters. Start with search_content for a topic, search_entities to
find an entity id (then entity_timeline or the entity_ids filter), list_stories for what is
happening. Cite items by their title and url. Monitors are saved searches that run on a schedule
and collect results; they belong to the user's workspace.
"""

# Argument types shared by several tools. Values are checked by the API, not here.
Query = Annotated[str, Field(description="What to look for, in natural language or keywords.")]
StartDate = Annotated[
    str | None,
    Field(
        description="Start of the published-date window: YYYY-MM-DD or an ISO 8601 datetime "
        "(UTC when no offset). Give both dates or neither."
    ),
]
EndDate = Annotated[
    str | None,
    Field(description="End of the window, inclusive: YYYY-MM-DD or an ISO 8601 datetime."),
]
MediaTypes = Annotated[
    list[str] | None,
    Field(description='Only these media types: any of "news", "wire", "podcast".'),
]
IncludeDomains = Annotated[
    list[str] | None,
    Field(description="Only these source domains (at most 10), e.g. reuters.com."),
]
ExcludeDomains = Annotated[
    list[str] | None,
    Field(description="Never these source domains (at most 10); not with include_domains."),
]
EntityIds = Annotated[
    list[str] | None,
    Field(description="Only content linked to at least one of these entity ids (ent_...)."),
]
SearchLimit = Annotated[int | None, Field(description="How many results, 1-100 (default 10).")]
Offset = Annotated[int | None, Field(description="Items to skip: a previous next_offset.")]
# An id is 1-1000 characters: an empty one names no resource, and a longer one no longer fits
# in a request's URL; either is an invalid argument, not a failed call.
ID_MAX_CHARS = 1000


def id_argument(description: str) -> Any:
    return Field(description=description, min_length=1, max_length=ID_MAX_CHARS)


MonitorId = Annotated[str, id_argument("The monitor's id (mon_...).")]

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)


def build_server(clients: ClientSource) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "herald",
        version=__version__,
        instructions=INSTRUCTIONS,
        title="Herald",
        middleware=[sdk_errors_as_codes],
    )

    async def run(ctx: Context[Any, Any], action: Action) -> CallToolResult:
        try:
            async with clients(ctx) as client:
                data = await action(client)
        except herald_client.APIStatusError as exc:
            details = [{"field": d.field, "message": d.message} for d in exc.details]
            return tool_error(exc.code, exc.message, details, exc.request_id)
        except ValidationError as exc:  # the client's own type check of the request
            details = [
                {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]}
                for e in exc.errors()
            ]
            summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:5])
            return tool_error("invalid_request", f"invalid request: {summary}", details)
        except herald_client.APIConnectionError as exc:
            return tool_error("api_unreachable", f"the Herald API did not answer: {exc.message}")
        return tool_result(data)

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

    @server.resource(
        "herald://stories/{story_id}",
        name="story",
        description="A story (news cluster) and its newest articles, with their urls.",
        mime_type="application/json",
    )
    async def story_resource(story_id: str, ctx: Context[Any, Any]) -> str:
        async with clients(ctx) as client, protocol_errors(story_id=story_id):
            return dumps(await story_detail(client, story_id, STORY_MEMBERS_DEFAULT))

    @server.resource(
        "herald://entities/{entity_id}",
        name="entity",
        description="An entity's recent coverage: the newest content that mentions it.",
        mime_type="application/json",
    )
    async def entity_resource(entity_id: str, ctx: Context[Any, Any]) -> str:
        async with clients(ctx) as client, protocol_errors(entity_id=entity_id):
            timeline = await client.entities.timeline(entity_id)
            urls = await lookup_urls(client, [t.id for t in timeline.timeline])
            items = [results.timeline_item(t, urls.get(t.id)) for t in timeline.timeline]
            return dumps({"entity_id": timeline.entity_id, "recent": items})

    @server.prompt(
        name="story_briefing",
        description="Brief on a story from its articles, citing each source by title and url.",
    )
    async def story_briefing(
        # checked by protocol_errors: the SDK reports a prompt's own argument errors as a crash
        story_id: Annotated[str, Field(description="The story's id (clu_...).")],
        ctx: Context[Any, Any],
    ) -> str:
        async with clients(ctx) as client, protocol_errors(story_id=story_id):
            detail = await story_detail(client, story_id, STORY_MEMBERS_DEFAULT)
        return (
            "Write a short briefing on this news story for a busy reader: what happened, who "
            "is involved, what is new in the latest articles and where sources differ. Use "
            "only the articles below, and cite each claim with the article's title and url.\n\n"
            + dumps(detail)
        )

    return server


async def scored_items(
    client: herald_client.AsyncClient, found: Sequence[herald_client.models.SearchResult]
) -> dict[str, Any]:
    urls = await lookup_urls(client, [r.content_item.id for r in found])
    return {
        "results": [
            results.listed_item(r.content_item, urls.get(r.content_item.id), r.score) for r in found
        ]
    }


async def story_detail(
    client: herald_client.AsyncClient, story_id: str, member_limit: int
) -> dict[str, Any]:
    detail = await client.clusters.get(story_id)
    members = detail.members[:member_limit]
    urls = await lookup_urls(client, [m.content_id for m in members])
    return {
        "story": results.story(detail.cluster),
        "members": [results.story_member(m, urls.get(m.content_id)) for m in members],
    }


async def lookup_urls(
    client: herald_client.AsyncClient, ids: Iterable[str]
) -> dict[str, str | None]:
    """The URL of each item, fetched by id (lists show the search form, which has none). An item
    that cannot be fetched just has no URL: its id is still there to cite."""
    found: dict[str, str | None] = {}
    limiter = anyio.CapacityLimiter(URL_LOOKUPS_AT_ONCE)

    async def one(content_id: str) -> None:
        async with limiter:
            try:
                found[content_id] = (await client.content.get(content_id)).url
            except herald_client.HeraldError:
                found[content_id] = None

    async with anyio.create_task_group() as group:
        for content_id in dict.fromkeys(ids):
            group.start_soon(one, content_id)
    return found


@asynccontextmanager
async def protocol_errors(**ids: str) -> AsyncIterator[None]:
    """Resources and prompts have no error result: an API error becomes the protocol's
    invalid-params error, with the API's code and message in its data. So does an id (given by
    name) that is empty or too long, as a tool's schema refuses it."""
    for name, value in ids.items():
        if not 1 <= len(value) <= ID_MAX_CHARS:
            message = f"{name} must be 1 to {ID_MAX_CHARS} characters"
            data = {"error": "invalid_request", "message": message}
            raise MCPError(INVALID_PARAMS, f"invalid_request: {message}", data)
    try:
        yield
    except herald_client.APIStatusError as exc:
        data = {"error": exc.code, "message": exc.message}
        raise MCPError(INVALID_PARAMS, f"{exc.code}: {exc.message}", data) from exc


async def sdk_errors_as_codes(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    """Give the SDK's own tool errors (arguments of the wrong JSON type, an unknown tool, a
    crash) the same shape and codes as the API's, so a model reads every failure one way."""
    result = await call_next(ctx)
    if isinstance(result, CallToolResult):
        result = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if (
        ctx.method != "tools/call"
        or not isinstance(result, dict)
        or not result.get("isError")
        or "structuredContent" in result
    ):
        return result
    text = "".join(str(block.get("text", "")) for block in result.get("content", []))
    message = "\n".join(line for line in text.splitlines() if "errors.pydantic.dev" not in line)
    mistaken = "validation error" in message or message.startswith("Unknown tool")
    body = {"error": "invalid_request" if mistaken else "internal_error", "message": message}
    return result | {"content": [{"type": "text", "text": dumps(body)}], "structuredContent": body}


def dumps(data: Any) -> str:
    """Compact JSON: a model reads it as well as an indented one, at fewer tokens."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def tool_result(data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(data))], structured_content=data
    )


def tool_error(
    code: str,
    message: str,
    details: list[dict[str, str]] | None = None,
    request_id: str | None = None,
) -> CallToolResult:
    """The API's error envelope as a tool error: ``error`` is the API's code."""
    body: dict[str, Any] = {"error": code, "message": message}
    if details:
        body["details"] = details
    if request_id:
        body["request_id"] = request_id
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(body))], structured_content=body, is_error=True
    )
