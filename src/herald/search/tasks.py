"""The durable indexing job ``search.sync`` (no payload; one queued at a time).

Enrichment queues it after storing results. It brings the shared search index (the Tantivy
directory, or the PostgreSQL lexical table) up to the database's change sequence, so indexing
work happens in the background rather than in the next search; searches catch up on their own
too (and each process's vector index catches up when that process searches).
"""

from __future__ import annotations

from collections.abc import Sequence

from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler
from herald.jobs.worker import JobContext
from herald.readiness import readiness_check, warmup
from herald.runtime import Runtime
from herald.search.service import check_reachable, get_search

SYNC_KIND = "search.sync"


@job_handler(SYNC_KIND, retry=RetryPolicy(max_attempts=10, delays=(1.0, 5.0, 30.0, 120.0)))
def handle_sync(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    search = get_search(ctx.runtime)
    with ctx.runtime.sessions.read() as session:
        # The shared index only: this process's vectors catch up when it first searches.
        search.catch_up(session, shared_only=True)
    with ctx.runtime.sessions.write() as session:
        ctx.finish(session, jobs)


@warmup("search")
def open_search_index(runtime: Runtime) -> None:
    """Open the indexes and catch up before the first search needs them."""
    search = get_search(runtime)
    with runtime.sessions.read() as session:
        search.catch_up(session)
    search.warm_up()


@readiness_check("search")
def search_index_reachable(runtime: Runtime) -> None:
    check_reachable(runtime)
