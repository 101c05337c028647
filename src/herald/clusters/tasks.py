"""The durable clustering job: ``clusters.assign`` (payload ``{"content_id"}``), queued by
enrichment for every news and wire item.

It runs in its own lane (one thread per process) and batches are serialised across processes by
the clustering lock, so items are clustered in the order their jobs were queued. Clustering and
job completion commit together.

``clusters.recount`` (:mod:`herald.clusters.recount`) makes the word statistics exact again; an
hourly check queues it when a clustered article has no record of its counted keys, and
``herald clusters recount`` queues it on demand.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from herald.clusters.recount import RECOUNT_KEY, RECOUNT_KIND, needs_recount, recount
from herald.clusters.service import CLUSTER_KIND, cluster_items, get_engine
from herald.jobs.queue import ClaimedJob, enqueue, key_status
from herald.jobs.registry import RetryPolicy, job_handler, periodic
from herald.jobs.worker import JobContext, PermanentJobError

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

CLUSTER_LANE = "clusters"
BATCH_SIZE = 64


@job_handler(
    CLUSTER_KIND,
    retry=RetryPolicy(max_attempts=5, delays=(5.0, 30.0, 120.0, 600.0)),
    batch_size=BATCH_SIZE,
    lane=CLUSTER_LANE,
)
def handle_assign(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    ordered = sorted(jobs, key=lambda job: job.id)  # queue order is arrival order
    ids: list[str] = []
    for job in ordered:
        content_id = job.payload.get("content_id")
        if not isinstance(content_id, str) or not content_id:
            raise PermanentJobError(f"job {job.id}: payload needs a content_id")
        ids.append(content_id)
    runtime = ctx.runtime
    engine = get_engine(runtime)
    with engine.lock, runtime.sessions.write() as session:
        cluster_items(session, engine, ids, clock=runtime.clock)
        ctx.finish(session, jobs)


RECOUNT_CHECK_SECONDS = 3600.0


@periodic("clusters.schedule_recount", interval_seconds=RECOUNT_CHECK_SECONDS)
def schedule_recount(runtime: Runtime) -> bool:
    """Queue a recount of the clustering statistics when a clustered article has no record of
    its counted keys (it was counted before revision 0028) and no recount is queued or running;
    True if queued."""
    with runtime.sessions.read() as session:
        if not needs_recount(session):
            return False
    return queue_recount(runtime) is not None


def queue_recount(runtime: Runtime) -> int | None:
    """Queue a recount unless one is queued or running; its job id, or None."""
    with runtime.sessions.write() as session:
        if key_status(session, RECOUNT_KEY) is not None:
            return None
        return enqueue(session, RECOUNT_KIND, {}, clock=runtime.clock, unique_key=RECOUNT_KEY)


@job_handler(
    RECOUNT_KIND,
    retry=RetryPolicy(max_attempts=5, delays=(300.0, 900.0, 3600.0)),
    max_run_seconds=6 * 3600.0,
)
def handle_recount(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    del jobs
    runtime = ctx.runtime
    report = recount(runtime.sessions, clock=runtime.clock)
    log.info(
        "clustering statistics recounted",
        extra={
            "recorded": report.recorded,
            "articles": report.articles,
            "corrected": report.corrected,
        },
    )
