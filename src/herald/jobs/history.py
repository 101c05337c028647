"""The daily history job: finished records older than ``HERALD_HISTORY_DAYS`` are deleted.

What it removes, oldest first and in batches of :data:`BATCH` rows per transaction:

- monitor runs: finished parent runs (scheduled, run-now, backfill) created before the cut-off,
  with their dated jobs (a foreign-key cascade); a run with a dated job still queued or running
  stays. The per-date ledger, which names the latest run of each date, stays too;
- webhook deliveries that succeeded or failed for good, created and last attempted before the
  cut-off, with their attempt records (a cascade), then the events no delivery refers to any more;
- jobs that failed for good before the cut-off;
- the records of retention's deletions finished before the cut-off (each pass records one per
  policy that matched, and a pass runs every hour); an operator's deletion records stay, as do
  the tombstones that name them. A deletion record still ``running`` :data:`ABANDONED_AFTER`
  after it started belongs to a pass or command that crashed (a retried pass records a new
  one): it is marked ``abandoned`` (with what its committed batches deleted), and retention's
  are deleted once they started before the cut-off;
- webhook replay requests made before the cut-off (only the latest one is read, for the rate
  limit);
- the request buckets of API keys (PostgreSQL's shared rate limits) untouched since the cut-off:
  a bucket idle for a minute is full, as if it had no row;
- what is left of deleted workspaces, whatever its age: jobs (not running) and job-queue turns
  of a workspace whose row is gone. A job of the workspace still running while the deletion
  finished can queue a follow-up after it; that job finds nothing to do, and its row and queue
  turn go here;
- the removal logs (``content_removals``, how search indexes learn of hard deletes, and
  ``entity_removals``, how entity views do) up to the number reached at the cut-off
  (:mod:`herald.db.removal_logs`).

Every scheduler looks each hour; the job's unique key is the UTC day, as for content retention
(:mod:`herald.content.tasks`). Deleting is idempotent, so a repeated pass deletes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, and_, delete, exists, or_, select, update
from sqlalchemy.orm import InstrumentedAttribute, aliased

from herald.db.models.content import ContentDeletion
from herald.db.models.job import Job, JobTurn, RateBucket
from herald.db.models.monitor import Monitor, MonitorRun
from herald.db.models.webhook_ops import WebhookReplay
from herald.db.models.webhooks import WebhookDelivery, WebhookEvent
from herald.db.models.workspace import Team
from herald.db.removal_logs import ENTITIES, prune_removals
from herald.jobs.enqueueing import enqueue_once
from herald.jobs.registry import RetryPolicy, job_handler, periodic

if TYPE_CHECKING:
    from herald.db.session import SessionFactory
    from herald.jobs.queue import ClaimedJob
    from herald.jobs.worker import JobContext
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

HISTORY_JOB = "history.prune"
CHECK_SECONDS = 3600.0
BATCH = 1000
_FINISHED_RUN = ("succeeded", "failed")
_FINISHED_DELIVERY = ("succeeded", "failed")
# A deletion runs as one command or one job attempt (a retry records a new deletion); one still
# running a week after it started is dead, whatever its size: a pass deletes about 50,000 items
# in seconds, and a job's lease lapses within minutes of its worker's death.
ABANDONED_AFTER = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Pruned:
    monitor_runs: int = 0  # parent runs (their dated jobs went with them)
    webhook_deliveries: int = 0  # their attempts went with them
    webhook_events: int = 0
    jobs: int = 0
    content_deletions: int = 0  # retention's records only
    webhook_replays: int = 0
    rate_buckets: int = 0
    deleted_workspaces: int = 0  # jobs and queue turns of workspaces that no longer exist
    abandoned_deletions: int = 0  # marked, not deleted (a kind of change, not of removal)

    @property
    def total(self) -> int:
        return (
            self.monitor_runs
            + self.webhook_deliveries
            + self.webhook_events
            + self.jobs
            + self.content_deletions
            + self.webhook_replays
            + self.rate_buckets
            + self.deleted_workspaces
        )


@periodic("history.schedule_prune", interval_seconds=CHECK_SECONDS)
def schedule_prune(runtime: Runtime) -> bool:
    """Queue today's history job unless it is queued or running, or history is kept forever."""
    if not runtime.settings.history_days:
        return False
    key = f"history:{runtime.clock.now().date().isoformat()}"
    with runtime.sessions.write() as session:
        return (
            enqueue_once(session, HISTORY_JOB, {}, clock=runtime.clock, unique_key=key) is not None
        )


@job_handler(HISTORY_JOB, retry=RetryPolicy(max_attempts=3, delays=(300.0, 1800.0)))
def handle_prune(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    del jobs
    runtime = ctx.runtime
    days = runtime.settings.history_days
    if not days:
        return
    now = runtime.clock.now()
    pruned = prune_history(runtime.sessions, before=now - timedelta(days=days), now=now)
    removals = prune_removals(runtime.sessions, now=now, before=now - timedelta(days=days))
    entity_removals = prune_removals(
        runtime.sessions, now=now, before=now - timedelta(days=days), log=ENTITIES
    )
    if pruned.total or pruned.abandoned_deletions or removals.rows or entity_removals.rows:
        log.info(
            "pruned history",
            extra={
                "monitor_runs": pruned.monitor_runs,
                "webhook_deliveries": pruned.webhook_deliveries,
                "webhook_events": pruned.webhook_events,
                "jobs": pruned.jobs,
                "content_deletions": pruned.content_deletions,
                "webhook_replays": pruned.webhook_replays,
                "rate_buckets": pruned.rate_buckets,
                "deleted_workspaces": pruned.deleted_workspaces,
                "abandoned_deletions": pruned.abandoned_deletions,
                "content_removals": removals.rows,
                "removals_pruned_through": removals.through,
                "entity_removals": entity_removals.rows,
            },
        )


def prune_history(sessions: SessionFactory, *, before: datetime, now: datetime) -> Pruned:
    """Delete the finished records older than ``before``, one batch per transaction (after
    marking the deletions abandoned at ``now``)."""
    abandoned = abandon_stale_deletions(sessions, now=now)
    return Pruned(
        abandoned_deletions=abandoned,
        monitor_runs=_prune_monitor_runs(sessions, before),
        webhook_deliveries=_prune_deliveries(sessions, before),
        webhook_events=_prune_events(sessions, before),
        jobs=_prune_failed_jobs(sessions, before),
        content_deletions=_prune_retention_records(sessions, before),
        webhook_replays=_prune_replays(sessions, before),
        rate_buckets=_prune_rate_buckets(sessions, before),
        deleted_workspaces=_prune_deleted_workspaces(sessions),
    )


def _delete_until_done(
    sessions: SessionFactory, pick: Select[Any], column: InstrumentedAttribute[Any]
) -> int:
    """Delete the rows whose ``column`` ``pick`` (at most BATCH) selects, until it selects fewer."""
    deleted = 0
    while True:
        with sessions.write() as session:
            ids = list(session.scalars(pick))
            if ids:
                session.execute(
                    delete(column.class_)
                    .where(column.in_(ids))
                    .execution_options(synchronize_session=False)
                )
        deleted += len(ids)
        if len(ids) < BATCH:
            return deleted


def _prune_monitor_runs(sessions: SessionFactory, before: datetime) -> int:
    """Per monitor, so each batch is one range of ``ix_monitor_runs_monitor_created``."""
    with sessions.read() as session:
        monitor_ids = list(session.scalars(select(Monitor.id)))
    child = aliased(MonitorRun)
    deleted = 0
    for monitor_id in monitor_ids:
        in_flight = exists().where(
            child.parent_run_id == MonitorRun.id, child.status.in_(("queued", "running"))
        )
        pick = (
            select(MonitorRun.id)
            .where(
                MonitorRun.monitor_id == monitor_id,
                MonitorRun.created_at < before,
                MonitorRun.kind != "dated",
                MonitorRun.status.in_(_FINISHED_RUN),
                ~in_flight,
            )
            .order_by(MonitorRun.created_at)
            .limit(BATCH)
        )
        deleted += _delete_until_done(sessions, pick, MonitorRun.id)
    return deleted


def _prune_deliveries(sessions: SessionFactory, before: datetime) -> int:
    """Walk the deliveries by id (their creation order) from the oldest; stop at the cut-off.

    Only the primary key is read, so a pass costs what it deletes, however long the table."""
    deleted = 0
    after = 0
    while True:
        with sessions.write() as session:
            rows = session.execute(
                select(
                    WebhookDelivery.id,
                    WebhookDelivery.created_at,
                    WebhookDelivery.status,
                    WebhookDelivery.last_attempt_at,
                )
                .where(WebhookDelivery.id > after)
                .order_by(WebhookDelivery.id)
                .limit(BATCH)
            ).all()
            if not rows:
                return deleted
            after = rows[-1].id
            reached_cutoff = any(r.created_at >= before for r in rows)
            old = [
                r.id
                for r in rows
                if r.created_at < before
                and r.status in _FINISHED_DELIVERY
                and (r.last_attempt_at is None or r.last_attempt_at < before)
            ]
            if old:
                session.execute(
                    delete(WebhookDelivery)
                    .where(WebhookDelivery.id.in_(old))
                    .execution_options(synchronize_session=False)
                )
        deleted += len(old)
        if reached_cutoff or len(rows) < BATCH:
            return deleted


def _prune_events(sessions: SessionFactory, before: datetime) -> int:
    """Events older than the cut-off that no delivery refers to, per workspace (one range of
    ``ix_webhook_events_team_created`` each)."""
    with sessions.read() as session:
        team_ids = list(session.scalars(select(Team.id)))
    deleted = 0
    for team_id in team_ids:
        referred = exists().where(WebhookDelivery.event_id == WebhookEvent.id)
        pick = (
            select(WebhookEvent.id)
            .where(
                and_(WebhookEvent.team_id == team_id, WebhookEvent.created_at < before),
                ~referred,
            )
            .limit(BATCH)
        )
        deleted += _delete_until_done(sessions, pick, WebhookEvent.id)
    return deleted


def _prune_failed_jobs(sessions: SessionFactory, before: datetime) -> int:
    pick = (
        select(Job.id)
        .where(
            Job.status == "failed",
            or_(Job.finished_at < before, and_(Job.finished_at.is_(None), Job.updated_at < before)),
        )
        .order_by(Job.id)
        .limit(BATCH)
    )
    return _delete_until_done(sessions, pick, Job.id)


def abandon_stale_deletions(sessions: SessionFactory, *, now: datetime) -> int:
    """Mark ``abandoned`` the deletion records still ``running`` :data:`ABANDONED_AFTER` after
    they started; how many."""
    with sessions.write() as session:
        marked = session.execute(
            update(ContentDeletion)
            .where(
                ContentDeletion.status == "running",
                ContentDeletion.started_at < now - ABANDONED_AFTER,
            )
            .values(status="abandoned", finished_at=now)
            .execution_options(synchronize_session=False)
        )
        return int(getattr(marked, "rowcount", 0) or 0)


def _prune_retention_records(sessions: SessionFactory, before: datetime) -> int:
    """Retention's finished deletion records, oldest first (``ix_content_deletions_started``):
    done before the cut-off, or abandoned and started before it."""
    pick = (
        select(ContentDeletion.id)
        .where(
            ContentDeletion.started_at < before,
            ContentDeletion.reason == "retention",
            or_(
                and_(ContentDeletion.status == "done", ContentDeletion.finished_at < before),
                ContentDeletion.status == "abandoned",
            ),
        )
        .order_by(ContentDeletion.started_at)
        .limit(BATCH)
    )
    return _delete_until_done(sessions, pick, ContentDeletion.id)


def _prune_replays(sessions: SessionFactory, before: datetime) -> int:
    """Replay requests, per workspace (one range of ``ix_webhook_replays_team_requested``)."""
    with sessions.read() as session:
        team_ids = list(session.scalars(select(Team.id)))
    deleted = 0
    for team_id in team_ids:
        pick = (
            select(WebhookReplay.id)
            .where(WebhookReplay.team_id == team_id, WebhookReplay.requested_at < before)
            .order_by(WebhookReplay.requested_at)
            .limit(BATCH)
        )
        deleted += _delete_until_done(sessions, pick, WebhookReplay.id)
    return deleted


def _prune_rate_buckets(sessions: SessionFactory, before: datetime) -> int:
    """Request buckets (PostgreSQL's shared rate limits: one per API key ever used, revoked ones
    too) untouched since the cut-off. A bucket left alone for a minute is full again, exactly as
    if it had no row, so deleting it changes no verdict."""
    pick = (
        select(RateBucket.bucket)
        .where(RateBucket.updated_at < before.timestamp())
        .order_by(RateBucket.bucket)
        .limit(BATCH)
    )
    return _delete_until_done(sessions, pick, RateBucket.bucket)


def _prune_deleted_workspaces(sessions: SessionFactory) -> int:
    """Jobs (not running: a running job keeps its lease until it ends) and job-queue turns of
    workspaces whose row is gone. Jobs of no workspace (``team_id`` null) and the turn of such
    jobs (``team_key`` empty) stay."""
    pick = (
        select(Job.id)
        .where(
            Job.team_id.is_not(None),
            Job.status != "running",
            ~exists().where(Team.id == Job.team_id),
        )
        .order_by(Job.id)
        .limit(BATCH)
    )
    deleted = _delete_until_done(sessions, pick, Job.id)
    with sessions.write() as session:
        result = session.execute(
            delete(JobTurn)
            .where(JobTurn.team_key != "", ~exists().where(Team.id == JobTurn.team_key))
            .execution_options(synchronize_session=False)
        )
    return deleted + int(getattr(result, "rowcount", 0) or 0)
