"""The FastAPI application factory."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from herald import __version__
from herald.api.errors import guard_literal_paths, install_error_handlers
from herald.api.middleware import HeraldMiddleware
from herald.api.routes import ROUTERS
from herald.api.schemas.common import ErrorBody
from herald.mcp.http import McpEndpoint
from herald.runtime import Runtime

DESCRIPTION = """
Herald indexes news, wire and podcast content from your own sources and serves ranked search,
entities, story clusters, monitors and signed webhooks.

Authenticate with `x-api-key: <key>` or `Authorization: Bearer <key>`. Every response carries
`x-request-id`; errors are `{error, message, meta: {request_id}, details?}`.
"""

PUBLIC_PATHS = frozenset(
    {"/healthz", "/readyz", "/metrics", "/metrics/shared", "/", "/openapi.json", "/docs"}
)
ERROR_STATUSES = {
    "400": "Invalid request (see `error` for the code)",
    "401": "Missing, unknown or revoked API key, or two different keys",
    "404": "No such resource in this workspace",
    "413": "Body larger than 1 MiB",
    "415": "Body is not application/json",
    "429": "Rate limited; see retry-after",
    "500": "Internal error (no details are exposed)",
}


def create_app(runtime: Runtime) -> FastAPI:
    mcp = McpEndpoint(runtime)  # MCP over streamable HTTP at /mcp (docs/mcp.md)
    app = FastAPI(
        lifespan=mcp.lifespan,
        title="Herald",
        version=__version__,
        description=DESCRIPTION,
        docs_url=None,  # served offline by herald.api.routes.console
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.runtime = runtime
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    mcp.mount(app)
    guard_literal_paths(app)
    app.add_middleware(HeraldMiddleware, max_body_bytes=runtime.settings.max_body_bytes)

    @app.get("/", include_in_schema=False)
    def root() -> dict[str, str]:
        return {"name": "Herald", "version": __version__, "docs": "/docs"}

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _document_errors(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    description=app.description,
                    routes=app.routes,
                )
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _document_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace FastAPI's 422 with the statuses Herald really returns, all in the error envelope."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["ErrorBody"] = ErrorBody.model_json_schema(
        ref_template="#/components/schemas/{model}"
    )
    for name, sub in components["ErrorBody"].pop("$defs", {}).items():
        components.setdefault(name, sub)
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    schema.setdefault("components", {})["securitySchemes"] = {
        "ApiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
        "Bearer": {"type": "http", "scheme": "bearer"},
    }
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            public = path in PUBLIC_PATHS
            statuses = ["400", "404", "405", "500"] if public else list(ERROR_STATUSES)
            if method not in ("post", "put", "patch"):
                statuses = [s for s in statuses if s not in ("413", "415")]
            for status in statuses:
                description = ERROR_STATUSES.get(status, "Method not allowed")
                entry = responses.setdefault(status, {"description": description})
                entry["content"] = error_ref
            if not public:
                operation["security"] = [{"ApiKey": []}, {"Bearer": []}]
    return schema
