"""Gauges read from the database at scrape time."""

from __future__ import annotations

import logging

from prometheus_client import Gauge

from herald.jobs.queue import counts_by_kind_and_status
from herald.runtime import Runtime

log = logging.getLogger(__name__)

JOBS = Gauge("herald_queue_jobs", "Jobs in the queue by kind and status", ["kind", "status"])


def refresh_queue_gauges(runtime: Runtime) -> None:
    try:
        with runtime.sessions.read() as session:
            rows = counts_by_kind_and_status(session)
    except Exception:
        log.exception("could not read queue counts")
        return
    JOBS.clear()
    for kind, status, count in rows:
        JOBS.labels(kind, status).set(count)
