"""Liveness, readiness and metrics: no authentication (meant for orchestrators and Prometheus)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from herald import __version__
from herald.api.deps import RuntimeDep
from herald.api.errors import error_body
from herald.api.metrics import refresh_queue_gauges
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
def metrics(runtime: RuntimeDep) -> Response:
    refresh_queue_gauges(runtime)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
