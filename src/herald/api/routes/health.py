"""Liveness, readiness and metrics: no API key (meant for orchestrators and Prometheus).

Readiness says which check failed, never why (the log has the reason); metrics can require a
token of their own (``HERALD_METRICS_TOKEN``).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST

from herald import __version__
from herald.api.deps import RuntimeDep
from herald.api.errors import error_body
from herald.errors import Unauthorized
from herald.metrics.exposition import Metrics, metrics_for
from herald.readiness import readiness_report

log = logging.getLogger(__name__)
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


def _authorised(request: Request, runtime: RuntimeDep) -> Metrics:
    metrics = metrics_for(runtime)
    if not metrics.authorised(request.headers.get("authorization", "")):
        raise Unauthorized("metrics need 'Authorization: Bearer <metrics token>'")
    return metrics


@router.get("/metrics", summary="Prometheus metrics of this process", response_class=Response)
def metrics(request: Request, runtime: RuntimeDep) -> Response:
    """Requests, jobs, webhook attempts and memory of this process (and of its worker
    children): scrape every process and sum."""
    return Response(_authorised(request, runtime).per_process(), media_type=CONTENT_TYPE_LATEST)


@router.get(
    "/metrics/shared",
    summary="Prometheus gauges of the shared state (job queue, deliveries, database size)",
    response_class=Response,
    responses={503: {"description": "The database could not be read"}},
)
def shared_metrics(request: Request, runtime: RuntimeDep) -> Any:
    """Read from the database: the same from every process, so scrape one (or take the max)."""
    metrics = _authorised(request, runtime)
    try:
        body = metrics.shared()
    except Exception:
        log.exception("could not read the shared metrics")
        failed = error_body("not_ready", "the shared metrics could not be read from the database")
        return JSONResponse(failed, status_code=503)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
