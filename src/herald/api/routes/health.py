"""Liveness, readiness and metrics: no API key (meant for orchestrators and Prometheus).

Readiness says which check failed, never why (the log has the reason); metrics can require a
token of their own (``HERALD_METRICS_TOKEN``).
"""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from herald import __version__
from herald.api.deps import RuntimeDep
from herald.api.errors import error_body
from herald.api.metrics import refresh_queue_gauges
from herald.errors import Unauthorized
from herald.readiness import readiness_report

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness: the process is up")
def healthz() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


@router.get(
    "/readyz",
    summary="Readiness: the database and the search index are reachable",
    responses={503: {"description": "A dependency is not ready"}},
)
def readyz(runtime: RuntimeDep) -> Any:
    checks = readiness_report(runtime)
    if all(check["ok"] for check in checks.values()):
        return {"status": "ready", "checks": checks}
    body = error_body("not_ready", "a dependency is not ready")
    body["checks"] = checks
    return JSONResponse(body, status_code=503)


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
def metrics(request: Request, runtime: RuntimeDep) -> Response:
    wanted = runtime.settings.metrics_token
    if wanted:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            token.strip().encode(), wanted.encode()
        ):
            raise Unauthorized("metrics need 'Authorization: Bearer <metrics token>'")
    refresh_queue_gauges(runtime)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
