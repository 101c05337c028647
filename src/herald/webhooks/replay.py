"""Replaying deliveries: one now, or every unfinished one of a time window through the engine.

A replay is a new attempt of the same delivery: the same event (same id and body, so receivers
de-duplicate), signed at send time with the secrets valid then (the current one first), recorded
in the attempt log and the stats like any attempt. It counts as one of the delivery's attempts:
a delivery still retrying keeps its schedule from the replay's outcome; a failed one that fails
again stays failed.

- One delivery (:func:`replay_delivery`) is attempted at once in the calling process, leased
  first so the engine cannot attempt it at the same time (a delivery in flight is refused).
- A window (:func:`replay_window`) makes its failed, pending and retrying deliveries due now, at
  most :data:`MAX_REPLAY_DELIVERIES` per call (the oldest first), and wakes the dispatcher: the
  engine then sends them with its usual per-workspace concurrency. One window replay per
  workspace per :data:`REPLAY_INTERVAL`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import new_uuid
from herald.db.models.webhook_ops import WebhookReplay
from herald.db.models.webhooks import WebhookDelivery
from herald.errors import (
    DeliveryInFlight,
    FieldIssue,
    InvalidRequest,
    NotFound,
    RateLimited,
)
from herald.webhooks import leasing, repository
from herald.webhooks.delivery import get_sender
from herald.webhooks.events import enqueue_dispatch

if TYPE_CHECKING:
    from herald.runtime import Runtime

MAX_REPLAY_DELIVERIES = 1000
MAX_REPLAY_WINDOW = timedelta(days=30)
REPLAY_INTERVAL = timedelta(seconds=30)
REPLAYABLE = ("failed", "pending", "retrying")


def _enabled_target(session: Session, team_id: str) -> None:
    target = repository.get_target(session, team_id)
    if target is None:
        raise NotFound("this workspace has no webhook target; create one with PUT /v1/webhooks")
    if not target.enabled:
        raise InvalidRequest("the webhook target is disabled; enable it to replay deliveries")


def replay_delivery(runtime: Runtime, team_id: str, delivery_id: int) -> WebhookDelivery:
    """Attempt one delivery again now; returns it after that attempt."""
    sender = get_sender(runtime)
    clock = runtime.clock
    owner = new_uuid()
    with runtime.sessions.write() as session:
        _enabled_target(session, team_id)
        if repository.get_delivery(session, team_id, delivery_id) is None:
            raise NotFound(f"no delivery {delivery_id}")
        now = clock.now()
        expires = now + timedelta(seconds=sender.lease_seconds)
        taken = session.execute(
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == delivery_id,
                or_(
                    WebhookDelivery.lease_expires_at.is_(None),
                    WebhookDelivery.lease_expires_at < now,
                ),
            )
            .values(lease_owner=owner, lease_expires_at=expires)
        )
        if not taken.rowcount:  # type: ignore[attr-defined]
            raise DeliveryInFlight(
                f"delivery {delivery_id} is being attempted right now; replay it after that"
            )
        session.add(
            WebhookReplay(
                team_id=team_id,
                scope="delivery",
                window_start=None,
                window_end=None,
                delivery_count=1,
                requested_at=now,
            )
        )
        leased = repository.leased_delivery(session, delivery_id, owner=owner, expires=expires)
    result = sender.attempt(leased)
    with runtime.sessions.write() as session:
        leasing.record_attempt(session, result)
        delivery = repository.get_delivery(session, team_id, delivery_id)
    assert delivery is not None
    return delivery


@dataclass(frozen=True, slots=True)
class WindowReplay:
    start: datetime
    end: datetime
    replayed: int  # deliveries made due now
    more: bool  # more unfinished deliveries in the window than one call replays


def replay_window(
    session: Session, team_id: str, *, start: datetime, end: datetime, clock: Clock
) -> WindowReplay:
    """Make the window's unfinished deliveries (created in ``[start, end]``) due now."""
    if end - start > MAX_REPLAY_WINDOW:
        raise InvalidRequest(
            f"the replay window is at most {MAX_REPLAY_WINDOW.days} days",
            details=[FieldIssue("start", f"at most {MAX_REPLAY_WINDOW.days} days before end")],
        )
    repository.lock_team_config(session, team_id)
    _enabled_target(session, team_id)
    now = clock.now()
    last = session.scalar(
        select(func.max(WebhookReplay.requested_at)).where(
            WebhookReplay.team_id == team_id, WebhookReplay.scope == "window"
        )
    )
    if last is not None and now - last < REPLAY_INTERVAL:
        wait = (last + REPLAY_INTERVAL - now).total_seconds()
        raise RateLimited(
            f"one window replay per {int(REPLAY_INTERVAL.total_seconds())} seconds",
            retry_after_seconds=math.ceil(wait),
        )
    ids = list(
        session.scalars(
            select(WebhookDelivery.id)
            .where(
                WebhookDelivery.team_id == team_id,
                WebhookDelivery.status.in_(REPLAYABLE),
                WebhookDelivery.created_at >= start,
                WebhookDelivery.created_at <= end,
                # one being attempted right now is left to that attempt
                or_(
                    WebhookDelivery.lease_expires_at.is_(None),
                    WebhookDelivery.lease_expires_at < now,
                ),
            )
            .order_by(WebhookDelivery.id)
            .limit(MAX_REPLAY_DELIVERIES + 1)
        )
    )
    chosen = ids[:MAX_REPLAY_DELIVERIES]
    for chunk in [chosen[i : i + 500] for i in range(0, len(chosen), 500)]:
        session.execute(
            update(WebhookDelivery)
            .where(and_(WebhookDelivery.id.in_(chunk)))
            .values(
                status=case(
                    (WebhookDelivery.status == "failed", "retrying"),
                    else_=WebhookDelivery.status,
                ),
                next_attempt_at=now,
            )
        )
    session.add(
        WebhookReplay(
            team_id=team_id,
            scope="window",
            window_start=start,
            window_end=end,
            delivery_count=len(chosen),
            requested_at=now,
        )
    )
    if chosen:
        enqueue_dispatch(session, team_id, clock)
    session.flush()
    return WindowReplay(start, end, len(chosen), len(ids) > MAX_REPLAY_DELIVERIES)
