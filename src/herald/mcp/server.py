"""The tools, resources and prompt, written once for both transports.

Each tool is one or a few calls of ``herald_client`` on the client its transport hands out; the
API does all validation, so a bad argument comes back as the API's error (its ``error``
code, message and offending fields) in a tool error the model can read and correct its call from.
A value of the wrong type the client refuses before sending is that same error, without a
request id.
The tools are in ``content_tools.py`` and ``monitor_tools.py``; how they answer, in
``replies.py``.
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from typing import Annotated, Any, Protocol

import herald_client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from herald import __version__
from herald.mcp import results
from herald.mcp.content_tools import register_content_tools
from herald.mcp.monitor_tools import register_monitor_tools
from herald.mcp.reads import STORY_MEMBERS_DEFAULT, lookup_urls, story_detail
from herald.mcp.replies import (
    VERSION_MISMATCH,
    Action,
    dumps,
    protocol_errors,
    sdk_errors_as_codes,
    tool_error,
    tool_result,
    version_mismatch,
)

# The SDK logs every request at INFO; Herald's own access log already records the API calls.
logging.getLogger("mcp").setLevel(logging.WARNING)


class ClientSource(Protocol):
    """What a transport provides: the API client one call (tool, resource, prompt) uses."""

    def __call__(
        self, ctx: Context[Any, Any], /
    ) -> AbstractAsyncContextManager[herald_client.AsyncClient]: ...


INSTRUCTIONS = """\
Herald holds the user's own news, wire and podcast content, enriched with summaries, key points,
linked entities and story clusters. Start with search_content for a topic, search_entities to
find an entity id (then entity_timeline or the entity_ids filter), list_stories for what is
happening. Cite items by their title and url. Monitors are saved searches that run on a schedule
and collect results; they belong to the user's workspace.
"""


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
        except herald_client.APIConnectionError as exc:
            return tool_error("api_unreachable", f"the Herald API did not answer: {exc.message}")
        except herald_client.APIResponseValidationError as exc:
            message, details = version_mismatch(exc)
            return tool_error(VERSION_MISMATCH, message, details, exc.request_id)
        return tool_result(data)

    register_content_tools(server, run)
    register_monitor_tools(server, run)

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
