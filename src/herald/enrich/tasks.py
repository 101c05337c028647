"""The durable enrichment job: ``enrich.item`` (payload ``{"content_id"}``), batched.

The slow part (models) runs outside any transaction; then one write unit of work stores every
item's results, queues what follows (search indexing, clustering) and finishes the jobs, so
results and completion commit together and a crash in between simply runs the batch again.
"""

from __future__ import annotations

from collections.abc import Sequence

from herald.enrich.queueing import ENRICH_KIND
from herald.enrich.service import compute, get_pipeline, store
from herald.entities.staging import ConfirmRule
from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler
from herald.jobs.worker import JobContext, PermanentJobError
from herald.readiness import warmup
from herald.runtime import Runtime

BATCH_SIZE = 32


@job_handler(
    ENRICH_KIND,
    retry=RetryPolicy(max_attempts=5, delays=(10.0, 60.0, 300.0, 1800.0)),
    batch_size=BATCH_SIZE,
)
def handle_enrich(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    ids: list[str] = []
    for job in jobs:
        content_id = job.payload.get("content_id")
        if not isinstance(content_id, str) or not content_id:
            raise PermanentJobError(f"job {job.id}: payload needs a content_id")
        ids.append(content_id)
    result, hashes = compute(ctx.runtime, list(dict.fromkeys(ids)))
    settings = ctx.runtime.settings
    rule = ConfirmRule(settings.entity_confirm_items, settings.entity_confirm_sources)
    with ctx.runtime.sessions.write() as session:
        store(session, result, hashes, clock=ctx.runtime.clock, confirm=rule)
        ctx.finish(session, jobs)


@warmup("enrichment")
def load_enrichment_models(runtime: Runtime) -> None:
    """Seed the knowledge base if needed and load the models before the first job needs them."""
    get_pipeline(runtime)
