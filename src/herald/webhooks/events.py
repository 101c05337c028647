"""Recording webhook events: the one entry point other areas call (monitors do).

Signature (other areas depend on it):

    record_event(session, *, team_id, event_type, data, clock) -> str | None

It runs inside the caller's transaction: it writes the event, and when the workspace has an enabled
target, a pending delivery and its durable delivery job. It returns the event id (``evt_...``), or
``None`` when the workspace has no enabled target (no event is created then).
The webhooks area implements it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import new_id
from herald.jobs import queue
from herald.webhooks import repository
from herald.webhooks.payloads import encode_event, event_envelope

DISPATCH_KIND = "webhooks.dispatch"


def record_event(
    session: Session, *, team_id: str, event_type: str, data: dict[str, Any], clock: Clock
) -> str | None:
    """Record an event for the workspace's target in the caller's transaction (see module doc).

    ``event_type`` must be one of the stable types; ``data`` must be JSON-serialisable (datetimes
    are rendered as ISO 8601 UTC). Nothing is sent before the caller commits.
    """
    if not repository.target_enabled(session, team_id):
        return None
    event_id, _ = create_event(
        session, team_id=team_id, event_type=event_type, data=data, clock=clock
    )
    enqueue_dispatch(session, team_id, clock)
    return event_id


def create_event(
    session: Session,
    *,
    team_id: str,
    event_type: str,
    data: dict[str, Any],
    clock: Clock,
    is_test: bool = False,
    lease_owner: str | None = None,
    lease_seconds: float = 0.0,
) -> tuple[str, int]:
    """Write an event and its pending delivery; returns ``(event_id, delivery_id)``."""
    now = clock.now()
    event_id = new_id("evt")
    envelope = event_envelope(
        event_id=event_id, event_type=event_type, created_at=now, team_id=team_id, data=data
    )
    repository.insert_event(
        session,
        event_id=event_id,
        team_id=team_id,
        event_type=event_type,
        body=encode_event(envelope).decode("utf-8"),
        now=now,
    )
    delivery_id = repository.insert_delivery(
        session,
        team_id=team_id,
        event_id=event_id,
        event_type=event_type,
        is_test=is_test,
        now=now,
        lease_owner=lease_owner,
        lease_expires_at=now + timedelta(seconds=lease_seconds) if lease_owner else None,
    )
    return event_id, delivery_id


def enqueue_dispatch(session: Session, team_id: str, clock: Clock) -> None:
    """Wake a dispatcher for the workspace (at most one queued per workspace: the key drops
    duplicates, and a queued one waits while another runs, so no wake-up is lost)."""
    queue.enqueue(
        session,
        DISPATCH_KIND,
        {"team_id": team_id},
        clock=clock,
        unique_key=f"{DISPATCH_KIND}:{team_id}",
        team_id=team_id,
    )
