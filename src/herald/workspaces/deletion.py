"""Deleting a workspace and everything that belongs to it (``herald workspaces delete``).

A workspace owns its API keys, its monitors (their runs, results, per-date ledger and feed), its
webhook target (its signing secrets, events, deliveries, attempts, replays and audit), its jobs,
its turns in the job queue and its keys' rate buckets. Content, sources, entities and story
clusters are shared by every workspace: deleting one leaves them, and every other workspace,
untouched.

:func:`start_deletion` runs in one transaction: it revokes the keys (no request gets in from the
moment it commits), disables the monitors (the scheduler queues no run), pauses the webhook
target (nothing more is delivered), frees the workspace's name (renamed ``deleting <id>``: a
key created with the name makes a new workspace) and queues the ``workspaces.delete`` job.
:func:`delete_workspace` (the job, or the command itself) then deletes the rows in batches, one
transaction each, children before parents, the workspace row last. Every batch deletes what is
left, so running it again after a crash finishes the work (it is idempotent); once the workspace
row is gone there is nothing left to do. A job of the workspace that is running when its row is
deleted loses its lease: its work is rolled back, never committed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from sqlalchemy import ColumnElement, Table, delete, func, or_, select, tuple_, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from herald.core.clock import Clock
from herald.db.base import Base
from herald.db.models.job import Job, JobTurn, RateBucket
from herald.db.models.monitor import Monitor, MonitorLedgerEntry, MonitorResult, MonitorRun
from herald.db.models.monitor_feeds import MonitorFeed
from herald.db.models.webhook_ops import WebhookReplay, WebhookTargetAudit
from herald.db.models.webhooks import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEvent,
    WebhookSigningSecret,
    WebhookTarget,
)
from herald.db.models.workspace import ApiKey, Team
from herald.db.session import SessionFactory
from herald.errors import NotFound
from herald.jobs.enqueueing import enqueue

DELETE_KIND = "workspaces.delete"
BATCH = 1000  # rows per transaction
DELETING_PREFIX = "deleting "  # a workspace being deleted is renamed "deleting <team id>"


def _t(model: type[Base]) -> Table:
    return cast(Table, model.__table__)


def deletion_key(team_id: str) -> str:
    return f"workspace.delete:{team_id}"


def _monitors(team_id: str) -> ColumnElement[bool]:
    return Monitor.team_id == team_id


def _of_monitors(column: InstrumentedAttribute[str], team_id: str) -> ColumnElement[bool]:
    return column.in_(select(Monitor.id).where(_monitors(team_id)).scalar_subquery())


def _steps(team_id: str) -> list[tuple[Table, ColumnElement[bool]]]:
    """What to delete, in order (children before parents), batch by batch."""
    return [
        (_t(Job), (Job.team_id == team_id) & (Job.status != "running")),
        (_t(WebhookAttempt), WebhookAttempt.team_id == team_id),
        (_t(WebhookDelivery), WebhookDelivery.team_id == team_id),
        (_t(WebhookEvent), WebhookEvent.team_id == team_id),
        (_t(WebhookReplay), WebhookReplay.team_id == team_id),
        (_t(WebhookTargetAudit), WebhookTargetAudit.team_id == team_id),
        (_t(MonitorResult), _of_monitors(MonitorResult.monitor_id, team_id)),
        (_t(MonitorLedgerEntry), _of_monitors(MonitorLedgerEntry.monitor_id, team_id)),
        # dated runs before their parents (a parent's delete would cascade to all of them)
        (
            _t(MonitorRun),
            _of_monitors(MonitorRun.monitor_id, team_id) & MonitorRun.parent_run_id.is_not(None),
        ),
        (_t(MonitorRun), _of_monitors(MonitorRun.monitor_id, team_id)),
        (_t(MonitorRun), MonitorRun.team_id == team_id),
        (_t(MonitorFeed), MonitorFeed.team_id == team_id),
        (_t(Monitor), _monitors(team_id)),
        (_t(WebhookSigningSecret), WebhookSigningSecret.team_id == team_id),
        (_t(WebhookTarget), WebhookTarget.team_id == team_id),
    ]


def _final(session: Session, team_id: str) -> list[tuple[Table, ColumnElement[bool]]]:
    """Deleted together with the workspace row, in its transaction."""
    keys = [
        f"key:{key_id}"
        for key_id in session.scalars(select(ApiKey.id).where(ApiKey.team_id == team_id))
    ]
    return [
        # a job still running loses its lease: its work is rolled back, not committed
        (_t(Job), Job.team_id == team_id),
        (_t(Job), (Job.unique_key == deletion_key(team_id)) & (Job.status == "queued")),
        (_t(JobTurn), JobTurn.team_key == team_id),
        (_t(RateBucket), RateBucket.bucket.in_(keys)),
        (_t(ApiKey), ApiKey.team_id == team_id),
        (_t(Team), Team.id == team_id),
    ]


# Every table a workspace has rows in (tests check that each table with a team_id is here).
WORKSPACE_TABLES: frozenset[str] = frozenset(
    {table.name for table, _ in _steps("")}
    | {"jobs", "job_turns", "rate_buckets", "api_keys", "teams"}
)


@dataclass(frozen=True, slots=True)
class Workspace:
    team_id: str
    name: str
    deleting: bool  # a deletion was started before


def find_workspace(session: Session, workspace: str) -> Workspace:
    """The workspace with this id or name (an id first); NotFound otherwise."""
    ref = workspace.strip()
    team = session.get(Team, ref) or session.scalars(select(Team).where(Team.name == ref)).first()
    if team is None:
        raise NotFound(f"no workspace {ref!r} (give its name or its id, `team_...`)")
    deleting = team.name == DELETING_PREFIX + team.id
    return Workspace(team_id=team.id, name=team.name, deleting=deleting)


def count_rows(session: Session, team_id: str) -> dict[str, int]:
    """How many rows of each table belong to the workspace (tables with none left out)."""
    conditions: dict[str, tuple[Table, list[ColumnElement[bool]]]] = {}
    for table, where in [*_steps(team_id), *_final(session, team_id)]:
        if table.name == "jobs":
            where = Job.team_id == team_id  # not the deletion's own job
        conditions.setdefault(table.name, (table, []))[1].append(where)
    counts: dict[str, int] = {}
    for name, (table, wheres) in conditions.items():
        n = session.scalar(select(func.count()).select_from(table).where(or_(*wheres)))
        if n:
            counts[name] = int(n)
    return counts


def start_deletion(session: Session, workspace: Workspace, *, clock: Clock) -> int | None:
    """Shut the workspace (keys revoked, monitors disabled, webhook target paused, name freed)
    and queue its deletion, in the caller's transaction; the job id (None: one is queued)."""
    now = clock.now()
    team_id = workspace.team_id
    session.execute(
        update(ApiKey)
        .where(ApiKey.team_id == team_id, ApiKey.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(Monitor)
        .where(Monitor.team_id == team_id, Monitor.status != "disabled")
        .values(status="disabled", next_run_at=None, disabled_at=now, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(WebhookTarget)
        .where(WebhookTarget.team_id == team_id, WebhookTarget.enabled.is_(True))
        .values(enabled=False, disabled_reason="workspace deleted", disabled_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(update(Team).where(Team.id == team_id).values(name=DELETING_PREFIX + team_id))
    return enqueue(
        session, DELETE_KIND, {"team_id": team_id}, clock=clock, unique_key=deletion_key(team_id)
    )


def delete_batch(session: Session, team_id: str, *, batch_size: int = BATCH) -> int:
    """Delete up to ``batch_size`` rows of the first table that still has some; 0 when only the
    workspace row and what goes with it (:func:`finish_deletion`) are left."""
    for table, where in _steps(team_id):
        deleted = _delete_some(session, table, where, batch_size)
        if deleted:
            return deleted
    return 0


def finish_deletion(session: Session, team_id: str) -> int:
    """Delete the workspace row with its keys, running jobs, queue turns and rate buckets."""
    return sum(
        _delete_some(session, table, where, None) for table, where in _final(session, team_id)
    )


def _delete_some(
    session: Session, table: Table, where: ColumnElement[bool], limit: int | None
) -> int:
    if limit is None:
        result = session.execute(delete(table).where(where))
        return int(getattr(result, "rowcount", 0) or 0)
    key = list(table.primary_key.columns)
    rows = session.execute(select(*key).where(where).limit(limit)).all()
    if not rows:
        return 0
    if len(key) == 1:
        condition = key[0].in_([row[0] for row in rows])
    else:
        condition = tuple_(*key).in_([tuple(row) for row in rows])
    result = session.execute(delete(table).where(condition))
    return int(getattr(result, "rowcount", 0) or 0)


def delete_workspace(
    sessions: SessionFactory,
    team_id: str,
    *,
    batch_size: int = BATCH,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Delete everything of the workspace in batches, then its row; returns the rows deleted.
    Idempotent: a workspace already gone deletes nothing."""
    total = 0
    while True:
        with sessions.write() as session:
            deleted = delete_batch(session, team_id, batch_size=batch_size)
            done = not deleted
            if done:
                deleted = finish_deletion(session, team_id)
        total += deleted
        if on_batch is not None and deleted:
            on_batch(deleted)
        if done:
            return total
