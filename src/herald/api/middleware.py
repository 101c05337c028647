"""One pure-ASGI middleware for what every request needs.

Request ids (``x-request-id`` on every response, set in the logging context), the access log,
Prometheus metrics by route template and status, the 1 MiB body limit (413) and the JSON-only body
rule (415), ``HEAD`` wherever ``GET`` works (answered as the GET, without its body), text the
databases cannot store (400, below), paths with an escaped slash (404, below), and the
last-resort 500 envelope (so even a crash carries the request id and no traceback).

An escaped slash (``%2F``) in the path is a character of one segment, but the server decodes the
path before routing, so ``/v1/monitors/ID%2Fruns`` would be routed as ``/v1/monitors/ID/runs``
(and ``DELETE /v1/monitors/ID%2Ffeed`` would revoke ID's feed). No id and no route holds a
slash in a segment, so such a path names nothing: ``404 not_found`` before any route runs.

Every string of every request is checked here, once, before any route runs: header values,
query parameter names and values, and every key and string value of a JSON body at any
depth. NUL characters and invalid Unicode (a lone surrogate, ``"\\ud800"`` in JSON) are a 400
``invalid_request`` naming the field, so such text is never stored (PostgreSQL refuses NUL, and
neither database can encode a lone surrogate: a stored one would break every later read). The
exceptions are the JSON Lines body of ``POST /v1/admin/content`` (each line is checked by the
ingestion rules, so a bad line is that line's error and the others are stored) and the text of
``/mcp`` requests (the MCP endpoint answers it in JSON-RPC, see ``herald.mcp.http``). A JSON body
nesting arrays and objects more than ``MAX_JSON_DEPTH`` deep is a 400 too (parsing and
validating it would recurse past the stack's limit).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any, Final
from urllib.parse import parse_qsl

from prometheus_client import Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from herald.api.errors import error_bytes
from herald.core.storable import find_unstorable, printable, text_problem
from herald.errors import FieldIssue
from herald.logging import request_id_var

log = logging.getLogger("herald.access")

REQUESTS = Counter(
    "herald_http_requests_total", "HTTP requests by route and status", ["method", "route", "status"]
)
LATENCY = Histogram(
    "herald_http_request_duration_seconds",
    "HTTP request latency by route",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0, 10.0),
)

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
JSON_TYPES = frozenset({"application/json"})
# Bulk ingestion also takes JSON Lines.
NDJSON_PATHS = frozenset({"/v1/admin/content"})
# The MCP endpoint answers such text itself, as a JSON-RPC answer an MCP client reads (a 400
# envelope is no answer to its request); its tools call the API, which checks every argument.
TEXT_CHECKED_BY_ROUTE = frozenset({"/mcp"})
# Request bodies nest a few levels; deeper ones would exhaust the routes' recursive checks.
MAX_JSON_DEPTH = 64
NDJSON_TYPES = frozenset(
    {
        "application/x-ndjson",
        "application/jsonl",
        "application/json-lines",
        # Feed and wire documents posted with ?format= to the content endpoint.
        "application/feed+json",
        "application/rss+xml",
        "application/atom+xml",
        "application/rdf+xml",
        "application/xml",
        "text/xml",
    }
)
Rejection = tuple[int, str, str] | tuple[int, str, str, list[FieldIssue]]


class HeraldMiddleware:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status_holder = {"status": 500, "sent": False}
        method = scope["method"]
        if method == "HEAD":
            scope = {**scope, "method": "GET"}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
                status_holder["sent"] = True
                headers = _with_defaults(list(message.get("headers", [])))
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
            elif message["type"] == "http.response.body" and method == "HEAD":
                message = {**message, "body": b""}  # the GET's headers, content-length included
            await send(message)

        try:
            rejection: Rejection | None = _escaped_slash_in_path(scope)
            if rejection is None:
                rejection = self._check_body_headers(scope)
            if rejection is None:
                rejection = _unstorable_in_url(scope)
            if rejection is None and _is_chunked(scope):
                receive, rejection = await self._buffer_chunked(receive)
            if rejection is None and _has_checked_json_body(scope):
                text = scope["path"] not in TEXT_CHECKED_BY_ROUTE
                receive, rejection = await _unstorable_in_body(receive, check_text=text)
            if rejection is not None:
                await self._reply(send_with_id, *rejection)
            else:
                await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unhandled error")
            if not status_holder["sent"]:
                await self._reply(send_with_id, 500, "internal_error", "an internal error occurred")
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            elapsed = time.perf_counter() - started
            status = str(status_holder["status"])
            REQUESTS.labels(method, template, status).inc()
            LATENCY.labels(method, template).observe(elapsed)
            state = scope.get("state") or {}
            log.info(
                "request",
                extra={
                    "method": method,
                    "path": _loggable_path(scope, template),
                    "route": template,
                    "status": int(status),
                    "duration_ms": round(elapsed * 1000, 2),
                    "team_id": state.get("team_id"),
                },
            )
            request_id_var.reset(token)

    def _too_large(self) -> str:
        return f"request body exceeds {self.max_body_bytes} bytes"

    def _check_body_headers(self, scope: Scope) -> tuple[int, str, str] | None:
        if scope["method"] not in BODY_METHODS:
            return None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                return 400, "invalid_request", "invalid content-length header"
            if declared > self.max_body_bytes:
                return 413, "payload_too_large", self._too_large()
            if declared == 0:
                return None
        elif "transfer-encoding" not in headers:
            return None  # no body at all
        media_type = headers.get("content-type", "").split(";")[0].strip().lower()
        allowed = JSON_TYPES | (NDJSON_TYPES if scope["path"] in NDJSON_PATHS else frozenset())
        if media_type not in allowed:
            shown = media_type or "none"
            return (
                415,
                "unsupported_media_type",
                f"request bodies must be application/json (got {shown})",
            )
        return None

    async def _buffer_chunked(
        self, receive: Receive
    ) -> tuple[Receive, tuple[int, str, str] | None]:
        """Read a body of unknown length up to the limit (FastAPI hides errors raised mid-read)."""
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                return receive, (413, "payload_too_large", self._too_large())
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        return replaying(body, receive), None

    @staticmethod
    async def _reply(
        send: Send, status: int, code: str, message: str, details: list[FieldIssue] | None = None
    ) -> None:
        body = error_bytes(code, message, details)
        headers: list[Any] = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


# Answers carry workspace data behind a key in `x-api-key`, which (unlike `Authorization`) does
# not keep a shared cache from storing them: nothing is stored unless a route says otherwise (the
# console's files, a monitor's feed), and nothing is read as another type than the one declared.
_DEFAULT_HEADERS: Final = ((b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"))


def _with_defaults(headers: list[Any]) -> list[Any]:
    present = {bytes(name).lower() for name, _ in headers}
    return headers + [pair for pair in _DEFAULT_HEADERS if pair[0] not in present]


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the already-read ``body`` once, then the real one."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _is_chunked(scope: Scope) -> bool:
    if scope["method"] not in BODY_METHODS:
        return False
    names = {k.lower() for k, _ in scope["headers"]}
    return b"content-length" not in names and b"transfer-encoding" in names


def _unstorable(field: str, problem: str) -> Rejection:
    message = f"{field} {problem}"
    return 400, "invalid_request", message, [FieldIssue(field, problem)]


ESCAPED_SLASH = (
    404,
    "not_found",
    "no such resource: no id or path segment contains an escaped slash (%2F)",
)


def _escaped_slash_in_path(scope: Scope) -> Rejection | None:
    # ``raw_path`` is the path as sent (optional in ASGI; some transports append the query).
    raw = scope.get("raw_path")
    if raw is None:
        return None
    path = bytes(raw).partition(b"?")[0]
    return ESCAPED_SLASH if b"%2f" in path.lower() else None


def _unstorable_in_url(scope: Scope) -> Rejection | None:
    # Header values are bytes read as Latin-1 (never a surrogate); HTTP servers refuse NUL in
    # them, but an ASGI caller might not: the routes read x-api-key and authorization.
    for name, value in scope["headers"]:
        if b"\x00" in value:
            return _unstorable(name.decode("latin-1").lower(), "must not contain NUL characters")
    # The path is not checked here: every path parameter is an id, and an id holding such text
    # cannot exist, so it is answered like any unknown id (404, by the routes' id check).
    query = scope.get("query_string", b"").decode("latin-1")
    if not query:
        return None
    for name, value in parse_qsl(query, keep_blank_values=True):
        problem = text_problem(name)
        if problem is not None:
            return _unstorable(printable(name), problem)
        problem = text_problem(value)
        if problem is not None:
            return _unstorable(name, problem)
    return None


def _too_deep() -> Rejection:
    message = f"the request body nests arrays and objects more than {MAX_JSON_DEPTH} deep"
    return 400, "invalid_request", message, [FieldIssue("body", message)]


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in a parsed JSON value (iterative: any depth)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _has_checked_json_body(scope: Scope) -> bool:
    if scope["method"] not in BODY_METHODS or scope["path"] in NDJSON_PATHS:
        return False
    for key, value in scope["headers"]:
        if key.lower() == b"content-type":
            return bool(value.split(b";")[0].strip().lower() == b"application/json")
    return False


async def _unstorable_in_body(
    receive: Receive, *, check_text: bool = True
) -> tuple[Receive, Rejection | None]:
    """Read the (size-checked) JSON body, check its depth and (``check_text``) its strings, and
    hand it on unchanged."""
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    rejection: Rejection | None = None
    try:
        # The stdlib parser, as the routes use: it decodes "\ud800" to a lone surrogate.
        parsed = json.loads(body) if body.strip() else None
    except ValueError:
        parsed = None  # not JSON: the route answers that
    except RecursionError:
        return replaying(body, receive), _too_deep()
    if _depth(parsed) > MAX_JSON_DEPTH:
        return replaying(body, receive), _too_deep()
    found = find_unstorable(parsed) if check_text else None
    if found is not None:
        field, problem = found
        rejection = _unstorable(field or "body", problem)
    return replaying(body, receive), rejection


# Path parameters that are credentials (a monitor's secret feed URL): never logged.
_SECRET_PATH_PARAMS = frozenset({"token"})
# Where those secrets sit in paths, for requests that miss the route (a feed URL with a slash
# or a suffix added is a redirect or a 404, and still carries the token).
_FEED_PATH_PREFIX = "feeds/"
_FEED_PATH_LOGGED = "/feeds/{token}"


def _loggable_path(scope: Scope, template: str) -> str | None:
    """The request's path for the access log; its route's template when a segment is a secret."""
    if _SECRET_PATH_PARAMS & set(scope.get("path_params") or ()):
        return template
    path: str | None = scope.get("path")
    if path is not None and path.lstrip("/").startswith(_FEED_PATH_PREFIX):
        return _FEED_PATH_LOGGED
    return path
