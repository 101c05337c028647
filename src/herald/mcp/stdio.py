"""``herald mcp``: the tools over stdio, calling a Herald API over HTTP with one key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import herald_client
from mcp.server.mcpserver import Context

from herald.mcp.server import build_server


async def serve_stdio(base_url: str, api_key: str, *, timeout: float = 60.0) -> None:
    """Answer MCP on stdin/stdout until the client closes them."""
    async with herald_client.AsyncClient(
        base_url=base_url, api_key=api_key, timeout=timeout
    ) as client:

        @asynccontextmanager
        async def shared(_ctx: Context[Any, Any]) -> AsyncIterator[herald_client.AsyncClient]:
            yield client  # one client (and connection pool) for every call, closed at the end

        await build_server(shared).run_stdio_async()
