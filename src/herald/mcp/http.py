"""``/mcp`` on ``herald serve``: MCP over streamable HTTP, with the API's keys.

Every request to ``/mcp`` must present an API key (``x-api-key`` or ``Authorization: Bearer``)
that the API accepts; anything else is the API's 401 envelope before the MCP layer sees it. The
tools then call the API in-process (an ``httpx.ASGITransport`` into this same app) with the
caller's key, so each call passes the public ``/v1`` routes with their authentication, rules,
rate limit and workspace isolation: the MCP endpoint adds no way around them.

The transport is stateless with JSON responses: each POST stands alone (no session to resume or
to hijack, any API process can answer it), and no tool needs a server-to-client request.

A request holding text the API refuses (a NUL character, a lone surrogate) is answered here in
JSON-RPC, as ``herald mcp`` over stdio answers it: a tool call gets an ``invalid_request`` tool
error naming the argument. The API's own 400 envelope would be no answer an MCP client can read,
and the SDK's parser refuses a lone surrogate without naming it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
import herald_client
import httpx
from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import JSONRPCError, JSONRPCResponse
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from herald.api.deps import presented_key
from herald.api.errors import error_response
from herald.api.middleware import replaying
from herald.core.storable import find_unstorable
from herald.errors import HeraldError
from herald.mcp.replies import unreadable_answer
from herald.mcp.server import build_server
from herald.runtime import Runtime
from herald.workspaces.service import authenticate

PATH = "/mcp"
# Where the in-process client addresses the app; never resolved, the transport is in-process.
INTERNAL_BASE_URL = "http://herald.internal"
_KEY = "herald.api_key"


class McpEndpoint:
    """The ASGI app at ``/mcp``; ``lifespan`` runs its session manager inside the app's."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._api: ASGIApp | None = None
        self._manager: StreamableHTTPSessionManager | None = None

    def mount(self, app: Any) -> None:
        """Serve ``/mcp`` on the API app, whose routes the tools call."""
        self._api = app
        app.add_route(PATH, self, methods=["GET", "POST", "DELETE"], include_in_schema=False)

    @asynccontextmanager
    async def lifespan(self, _app: object) -> AsyncIterator[None]:
        # A manager runs once; each lifespan (a server start, a test client) gets its own.
        server = build_server(self._client_for)
        # DNS-rebinding protection guards servers that trust the browser's ambient access;
        # every request here carries an API key a foreign page cannot know.
        server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            key = presented_key(request)
            await anyio.to_thread.run_sync(self._authenticate, key)
        except HeraldError as exc:
            response = error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)
            await response(scope, receive, send)
            return
        if self._manager is None:
            response = error_response(500, "internal_error", "the MCP endpoint is not running")
            await response(scope, receive, send)
            return
        scope[_KEY] = key
        if scope["method"] == "POST":
            body = await request.body()
            answer = _unusable_text_answer(body)
            if answer is not None:
                content = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
                await JSONResponse(content)(scope, receive, send)
                return
            receive = replaying(body, receive)
        await self._manager.handle_request(scope, receive, send)

    def _authenticate(self, key: str | None) -> None:
        with self._runtime.sessions.read() as session:
            authenticate(session, key)

    def _client_for(self, ctx: Context[Any, Any]) -> herald_client.AsyncClient:
        request = ctx.request_context.request
        assert isinstance(request, Request)
        assert self._api is not None
        return herald_client.AsyncClient(
            base_url=INTERNAL_BASE_URL,
            api_key=request.scope[_KEY],
            transport=httpx.ASGITransport(app=self._api),
            max_retries=0,
        )


def _unusable_text_answer(body: bytes) -> JSONRPCResponse | JSONRPCError | None:
    """The answer to a request holding text the API refuses (a NUL character, a lone
    surrogate), as ``herald mcp`` over stdio answers it; None for any other request (the SDK
    answers it, or refuses what is no JSON-RPC)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or find_unstorable(message.get("params")) is None:
        return None
    return unreadable_answer(message, "it holds text that cannot be stored")
