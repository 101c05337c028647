"""Every failure rendered as the error envelope ``{error, message, meta, details?}``."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Route, compile_path

from herald.errors import ALL_ERRORS, FieldIssue, HeraldError, field_path
from herald.logging import request_id_var

log = logging.getLogger(__name__)

# Validators may raise ``PydanticCustomError(<code>, msg)`` with a documented code to choose it.
_CODE_TO_ERROR = {cls.code: cls for cls in ALL_ERRORS}
_STATUS_CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}
_STATUS_CODES |= {415: "unsupported_media_type", 401: "unauthorized", 429: "rate_limited"}


def error_body(code: str, message: str, details: list[FieldIssue] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "error": code,
        "message": message,
        "meta": {"request_id": request_id_var.get()},
    }
    if details:
        body["details"] = [{"field": d.field, "message": d.message} for d in details]
    return body


def error_bytes(code: str, message: str, details: list[FieldIssue] | None = None) -> bytes:
    """The envelope serialised as every error response is (compact JSON, UTF-8)."""
    return bytes(JSONResponse(error_body(code, message, details)).body)


def error_response(
    status: int,
    code: str,
    message: str,
    details: list[FieldIssue] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(error_body(code, message, details), status_code=status, headers=headers)


# Where FastAPI found a value: the first step of an error's location, not part of the field.
_SOURCES = frozenset({"body", "query", "path", "header", "cookie"})


def _field_path(loc: tuple[Any, ...]) -> str:
    # Only the first step is the source: a field may itself be called "query" or "body".
    steps = loc[1:] if loc and loc[0] in _SOURCES else loc
    # Drop pydantic's validator steps such as "function-after[...]" (no field has brackets).
    return field_path(*(p for p in steps if "[" not in str(p)))


def _validation_response(exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    details: list[FieldIssue] = []
    chosen: type[HeraldError] | None = None
    for err in errors:
        kind = str(err.get("type", ""))
        field = _field_path(tuple(err.get("loc", ())))
        if kind == "json_invalid":
            return error_response(400, "invalid_request", "the request body is not valid JSON")
        message = str(err.get("msg", "invalid value"))
        if kind == "extra_forbidden":
            message = "unknown field"
        elif kind == "missing":
            message = "field required"
        details.append(FieldIssue(field, message))
        if chosen is None and kind in _CODE_TO_ERROR:
            chosen = _CODE_TO_ERROR[kind]
    if chosen is not None:
        first = next(d for d, e in zip(details, errors, strict=True) if e["type"] == chosen.code)
        return error_response(chosen.status, chosen.code, first.message, details)
    summary = "; ".join(f"{d.field}: {d.message}" for d in details[:5])
    return error_response(400, "invalid_request", f"invalid request: {summary}", details)


def allowed_methods(app: FastAPI, path: str) -> list[str]:
    """Every method some route answers on ``path`` (``HEAD`` wherever ``GET``), sorted."""
    table: list[tuple[re.Pattern[str], frozenset[str]]] | None = getattr(
        app.state, "method_table", None
    )
    if table is None:
        table = _method_table(app)
        app.state.method_table = table
    matching = [(pattern, ms) for pattern, ms in table if pattern.match(path)]
    # A literal path wins over a template (/v1/content/search is not a content id).
    literal = [(p, ms) for p, ms in matching if "(?P<" not in p.pattern]
    methods = {m for _, ms in literal or matching for m in ms}
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def _method_table(app: FastAPI) -> list[tuple[re.Pattern[str], frozenset[str]]]:
    table = []
    for route in _routes(app.router.routes):
        methods = getattr(route, "methods", None)
        route_path = getattr(route, "path", None)
        if methods and route_path and getattr(route, "endpoint", None) is not _wrong_method:
            table.append((compile_path(route_path)[0], frozenset(methods)))
    return table


async def _wrong_method(request: Request) -> None:
    raise StarletteHTTPException(405)


def guard_literal_paths(app: FastAPI) -> None:
    """Answer 405 on a literal path for the methods only a template beside it serves.

    ``GET /v1/content/search`` would otherwise be the content item "search" (404): the router
    takes a template's full match over a literal path's method mismatch. No id is a route's
    literal segment, so such a request is a wrong method, not an id lookup.
    """
    table = _method_table(app)
    literal: dict[str, set[str]] = {}
    for route in _routes(app.router.routes):
        route_path = getattr(route, "path", "")
        if getattr(route, "methods", None) and route_path and "{" not in route_path:
            literal.setdefault(route_path, set()).update(getattr(route, "methods", ()))
    guards = []
    for path, own in literal.items():
        taken = {m for pattern, ms in table if pattern.match(path) for m in ms} - own - {"HEAD"}
        if taken:
            guard = Route(path, _wrong_method, methods=sorted(taken), include_in_schema=False)
            guards.append(guard)
    app.router.routes[:0] = guards


def _routes(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    """The routes, included routers opened up (they keep theirs in ``original_router``)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HeraldError)
    async def _herald(_: Request, exc: HeraldError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "invalid_request")
        status = exc.status_code if exc.status_code in _STATUS_CODES else 400
        message = "no such resource" if code == "not_found" else str(exc.detail)
        headers = dict(getattr(exc, "headers", None) or {})
        if status == 405:
            # The router names only the first route on the path; a client needs all of them.
            allowed = allowed_methods(request.app, request.url.path)
            headers["Allow"] = ", ".join(allowed)
            message = f"method not allowed on this resource: use {' or '.join(allowed)}"
        return error_response(status, code, message, headers=headers or None)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error", exc_info=exc)
        return error_response(500, "internal_error", "an internal error occurred")
