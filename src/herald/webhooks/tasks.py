"""The webhooks area on the durable job queue: the dispatch job and the due-delivery sweep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler, periodic
from herald.jobs.worker import JobContext, PermanentJobError
from herald.webhooks import repository
from herald.webhooks.delivery import get_engine
from herald.webhooks.events import DISPATCH_KIND
from herald.webhooks.repository import LeasedDelivery

if TYPE_CHECKING:
    from herald.runtime import Runtime

SWEEP_SECONDS = 5.0


# The handler only leases rows and hands them to the engine's own threads: it takes milliseconds,
# so it can share the default lane. If it fails, the sweep dispatches the workspace again anyway.
@job_handler(
    DISPATCH_KIND, retry=RetryPolicy(max_attempts=5, delays=(1.0, 5.0, 30.0)), batch_size=32
)
def dispatch(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    engine = get_engine(ctx.runtime)
    team_ids: list[str] = []
    for job in jobs:
        team_id = job.payload.get("team_id")
        if not isinstance(team_id, str):
            raise PermanentJobError(f"dispatch job {job.id} has no team_id")
        team_ids.append(team_id)
    leased: list[LeasedDelivery] = []
    try:
        with ctx.runtime.sessions.write() as session:
            leased = engine.lease(session, team_ids)
            ctx.finish(session, jobs)
    except BaseException:
        engine.release(leased)
        raise
    engine.submit(leased)


@periodic("webhooks.dispatch_due", interval_seconds=SWEEP_SECONDS)
def dispatch_due(runtime: Runtime) -> int:
    """Lease and start what is due: retries whose time has come, and deliveries whose lease
    expired because a process died mid-attempt. Returns how many attempts it started.

    It leases directly instead of enqueueing dispatch jobs: a dispatch job that was running in a
    killed worker keeps its key locked until the job's own lease expires, and retries must not
    wait for that. Safe with several schedulers: leasing is atomic in the database.
    """
    engine = get_engine(runtime)
    leased: list[LeasedDelivery] = []
    try:
        with runtime.sessions.write() as session:
            teams = repository.teams_with_due_deliveries(session, runtime.clock.now())
            leased = engine.lease(session, teams)
    except BaseException:
        engine.release(leased)
        raise
    engine.submit(leased)
    return len(leased)
