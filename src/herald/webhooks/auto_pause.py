"""Pausing a target that has failed every attempt for too long, and the offer to replay on resume.

A target is *failing since* F when its first attempt after its last success (or after it was
last saved: a new URL or re-enabling starts afresh) failed at F, and no attempt has succeeded
since. Once F is ``webhook_auto_pause_days`` in the past (default 5) the periodic check disables
the target, keeps the reason for ``GET /v1/webhooks`` and writes an audit record. While it is
disabled no events are recorded and pending deliveries wait.

Re-enabling a paused target (``PUT /v1/webhooks`` with ``enabled: true``) clears the reason,
writes an audit record and answers with the window of deliveries left unfinished since F, ready
for ``POST /v1/webhooks/replay``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.models.webhook_ops import WebhookTargetAudit
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookTarget
from herald.jobs.registry import periodic
from herald.webhooks import repository
from herald.webhooks.replay import REPLAYABLE

if TYPE_CHECKING:
    from herald.runtime import Runtime

CHECK_SECONDS = 300.0


def failing_since(session: Session, target: WebhookTarget, *, before: datetime) -> datetime | None:
    """When the target's current run of failed attempts began (None if the latest succeeded)."""
    last_success = session.scalar(
        select(func.max(WebhookAttempt.attempted_at)).where(
            WebhookAttempt.team_id == target.team_id,
            WebhookAttempt.delivery_status == "succeeded",
            WebhookAttempt.attempted_at <= before,
        )
    )
    query = select(func.min(WebhookAttempt.attempted_at)).where(
        WebhookAttempt.team_id == target.team_id,
        WebhookAttempt.attempted_at >= target.updated_at,
        WebhookAttempt.attempted_at <= before,
    )
    if last_success is not None:
        query = query.where(WebhookAttempt.attempted_at > last_success)
    first_failure: datetime | None = session.scalar(query)
    return first_failure


def pause_failing_targets(session: Session, *, period: timedelta, clock: Clock) -> list[str]:
    """Disable enabled targets failing for at least ``period``; the workspaces paused."""
    now = clock.now()
    # Only workspaces with a failed attempt before the cut-off can qualify.
    candidates = session.scalars(
        select(WebhookTarget)
        .where(
            WebhookTarget.enabled.is_(True),
            WebhookTarget.team_id.in_(
                select(WebhookAttempt.team_id).where(
                    WebhookAttempt.delivery_status != "succeeded",
                    WebhookAttempt.attempted_at <= now - period,
                )
            ),
        )
        .order_by(WebhookTarget.team_id)
    ).all()
    paused: list[str] = []
    for target in candidates:
        since = failing_since(session, target, before=now)
        if since is None or now - since < period:
            continue
        failed = session.scalar(
            select(func.count()).where(
                WebhookAttempt.team_id == target.team_id, WebhookAttempt.attempted_at >= since
            )
        )
        reason = (
            f"paused automatically: all {failed} delivery attempts since "
            f"{since.isoformat().replace('+00:00', 'Z')} failed "
            f"(limit {period.total_seconds() / 86400:g} days)"
        )
        target.enabled = False
        target.disabled_reason = reason
        target.disabled_at = now
        session.add(
            WebhookTargetAudit(team_id=target.team_id, action="auto_paused", reason=reason, at=now)
        )
        paused.append(target.team_id)
    session.flush()
    return paused


@dataclass(frozen=True, slots=True)
class ReplayOffer:
    start: datetime
    end: datetime
    deliveries: int  # unfinished deliveries created in the window


def resume_if_paused(
    session: Session, team_id: str, *, enabled: bool | None, clock: Clock
) -> ReplayOffer | None:
    """Before ``enabled: true`` is saved: clear an automatic pause, audit it, and say what is
    left to replay (None if the target was not paused by Herald)."""
    if enabled is not True:
        return None
    repository.lock_team_config(session, team_id)
    target = repository.get_target(session, team_id)
    if target is None or target.enabled or target.disabled_reason is None:
        return None
    now = clock.now()
    paused_at = target.disabled_at or now
    start = failing_since(session, target, before=paused_at) or paused_at
    count = session.scalar(
        select(func.count()).where(
            WebhookDelivery.team_id == team_id,
            WebhookDelivery.status.in_(REPLAYABLE),
            WebhookDelivery.created_at >= start,
        )
    )
    target.disabled_reason = None
    target.disabled_at = None
    session.add(
        WebhookTargetAudit(
            team_id=team_id, action="re_enabled", reason="enabled by the workspace", at=now
        )
    )
    session.flush()
    return ReplayOffer(start, now, int(count or 0))


@periodic("webhooks.auto_pause", interval_seconds=CHECK_SECONDS)
def auto_pause(runtime: Runtime) -> int:
    days = runtime.settings.webhook_auto_pause_days
    if days <= 0:
        return 0
    with runtime.sessions.write() as session:
        return len(pause_failing_targets(session, period=timedelta(days=days), clock=runtime.clock))
