"""``herald mcp``: the tools over stdio, calling a Herald API over HTTP with one key.

A request line whose JSON holds a lone surrogate (``"\\ud800"``, which a JavaScript client
writes for a broken string) or is nested deeper than the SDK's parser goes is valid JSON, but
that parser refuses it and drops the line without an answer, so the agent would wait for one
forever. Such a request is answered here as the HTTP transport's API would refuse it:
``invalid_request``, naming the argument where one is at fault.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import herald_client
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from herald.mcp.replies import unreadable_answer
from herald.mcp.server import build_server


async def serve_stdio(base_url: str, api_key: str, *, timeout: float = 60.0) -> None:
    """Answer MCP on stdin/stdout until the client closes them."""
    async with herald_client.AsyncClient(
        base_url=base_url, api_key=api_key, timeout=timeout
    ) as client:

        @asynccontextmanager
        async def shared(_ctx: Context[Any, Any]) -> AsyncIterator[herald_client.AsyncClient]:
            yield client  # one client (and connection pool) for every call, closed at the end

        await _run_stdio(build_server(shared))


async def _run_stdio(server: MCPServer[Any]) -> None:
    """``server.run_stdio_async()``, with unreadable requests answered instead of dropped."""
    lowlevel = server._lowlevel_server  # the SDK's stdio runner, with a filter before it
    async with stdio_server() as (read_stream, write_stream):
        forward, inbox = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def filter_lines() -> None:
            async with forward:
                async for item in read_stream:
                    answer = answer_unreadable(item)
                    if answer is None:
                        await forward.send(item)
                    else:
                        await write_stream.send(answer)

        async with anyio.create_task_group() as group:
            group.start_soon(filter_lines)
            await lowlevel.run(inbox, write_stream, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


def answer_unreadable(item: SessionMessage | Exception) -> SessionMessage | None:
    """The answer to a request the SDK could not read because of a lone surrogate, else None.

    A ``tools/call`` gets a tool error (``invalid_request`` naming the argument), any other
    request the protocol's invalid-params error; a notification has nothing to answer.
    """
    if not isinstance(item, ValidationError):
        return None
    errors = item.errors()
    if not errors or errors[0]["type"] != "json_invalid":
        return None
    raw = errors[0].get("input")
    try:
        message = json.loads(raw) if isinstance(raw, str | bytes) else None
    except (ValueError, RecursionError):  # not JSON at all: there is no id to answer
        return None
    answer = unreadable_answer(message, str(errors[0]["msg"]))
    return None if answer is None else SessionMessage(answer)
