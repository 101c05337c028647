"""Ingestion's jobs: polling sources (a periodic schedule plus one durable job per poll)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from herald.core.net import parse_allow_networks
from herald.ingest.fetch import FetchPolicy, HttpFetcher
from herald.ingest.polling import POLL_JOB, poll_source, schedule_due_polls
from herald.jobs.registry import RetryPolicy, job_handler, periodic

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from herald.jobs.queue import ClaimedJob
    from herald.jobs.worker import JobContext
    from herald.runtime import Runtime

SCHEDULE_SECONDS = 30.0


def get_fetcher(runtime: Runtime) -> HttpFetcher:
    """One fetcher per process: its per-host politeness slots are shared by every poll."""

    def build() -> HttpFetcher:
        settings = runtime.settings
        policy = FetchPolicy(
            timeout_seconds=settings.fetch_timeout_seconds,
            connect_timeout_seconds=min(10.0, settings.fetch_timeout_seconds),
            max_bytes=settings.fetch_max_bytes,
            host_interval_seconds=settings.fetch_host_interval_seconds,
            block_private_addresses=True,
            allow_networks=parse_allow_networks(settings.fetch_allow_networks),
        )
        fetcher = HttpFetcher(clock=runtime.clock, policy=policy)
        runtime.on_close(fetcher.close)
        return fetcher

    fetcher: HttpFetcher = runtime.service("ingest.fetcher", build)
    return fetcher


# A failed fetch or parse is recorded on the source and retried at its next slot, not by the
# queue; an error storing the items is recorded too and raised: the queue tries once more.
@job_handler(POLL_JOB, retry=RetryPolicy(max_attempts=2, delays=(60.0,)))
def handle_poll(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    for job in jobs:

        def finish(session: Session, done: ClaimedJob = job) -> None:
            ctx.finish(session, [done])

        poll_source(
            ctx.runtime.sessions,
            str(job.payload["source_id"]),
            clock=ctx.runtime.clock,
            fetcher=get_fetcher(ctx.runtime),
            finish=finish,
        )


@periodic("ingest.schedule_polls", interval_seconds=SCHEDULE_SECONDS)
def schedule_polls(runtime: Runtime) -> None:
    with runtime.sessions.write() as session:
        schedule_due_polls(session, clock=runtime.clock)
