"""The durable clustering job: ``clusters.assign`` (payload ``{"content_id"}``), queued by
enrichment for every news and wire item.

It runs in its own lane (one thread per process) and batches are serialised across processes by
the clustering lock, so items are clustered in the order their jobs were queued. Clustering and
job completion commit together.
"""

from __future__ import annotations

from collections.abc import Sequence

from herald.clusters.service import CLUSTER_KIND, cluster_items, get_engine
from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler
from herald.jobs.worker import JobContext, PermanentJobError

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
