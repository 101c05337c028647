"""How the MCP layer answers: a tool's result or error in the API's error envelope, the
protocol's invalid-params error for resources and prompts, and the SDK's own errors given the
API's codes, so a model reads every failure one way."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import herald_client
from mcp import MCPError
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCResponse,
    TextContent,
)
from pydantic import ValidationError

from herald import __version__
from herald.core.storable import find_unstorable
from herald.mcp.arguments import ID_MAX_CHARS

# One tool's work: calls of the API client, and the result they make.
Action = Callable[[herald_client.AsyncClient], Awaitable[dict[str, Any]]]
# Runs an action on the client the call's transport hands out, and answers for it.
Runner = Callable[[Context[Any, Any], Action], Awaitable[CallToolResult]]


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
    except herald_client.APIResponseValidationError as exc:
        message, details = version_mismatch(exc)
        body = {"error": VERSION_MISMATCH, "message": message, "details": details}
        raise MCPError(INTERNAL_ERROR, f"{VERSION_MISMATCH}: {message}", body) from exc


# The API answered, but not in the shape this process's client library reads.
VERSION_MISMATCH = "api_version_mismatch"


def version_mismatch(
    exc: herald_client.APIResponseValidationError,
) -> tuple[str, list[dict[str, str]]]:
    """What of the API's successful answer the client library could not read (the server runs
    another Herald version than this one): the request, and each field that did not match."""
    request = exc.response.request
    asked = f"{request.method} {request.url.path}"
    cause = exc.__cause__
    if not isinstance(cause, ValidationError):  # not JSON at all
        return f"the Herald API's answer to {asked} is not JSON", []
    details = [
        {"field": ".".join(str(p) for p in error["loc"]) or "(body)", "message": error["msg"]}
        for error in cause.errors(include_url=False, include_input=False)
    ]
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:5])
    message = (
        f"the Herald API's answer to {asked} does not match what this Herald {__version__} "
        f"(client library {herald_client.__version__}) reads, as when the API runs another "
        f"Herald version: {summary}"
    )
    return message, details[:20]


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


def unreadable_answer(message: Any, reason: str) -> JSONRPCResponse | JSONRPCError | None:
    """The answer to a request whose text cannot be used (a NUL character, a lone surrogate:
    ``reason`` when none is found), as the API refuses such text: a ``tools/call`` gets a tool
    error (``invalid_request`` naming the argument), any other request the protocol's
    invalid-params error; a notification, or what is no request, has nothing to answer."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    found = find_unstorable(message.get("params"))
    if message["method"] == "tools/call":
        if found is not None and found[0].startswith("arguments."):
            field, problem = found[0].removeprefix("arguments."), found[1]
            details = [{"field": field, "message": problem}]
            result = tool_error("invalid_request", f"{field} {problem}", details)
        else:
            result = tool_error("invalid_request", f"the request cannot be read: {reason}")
        body = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return JSONRPCResponse(jsonrpc="2.0", id=request_id, result=body)
    text = f"params.{found[0]} {found[1]}" if found else f"cannot be read: {reason}"
    data = {"error": "invalid_request", "message": text}
    error = ErrorData(code=INVALID_PARAMS, message=f"invalid_request: {text}", data=data)
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


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
