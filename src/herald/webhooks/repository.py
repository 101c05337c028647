"""All SQL of the webhooks area. Functions take the caller's session and never commit."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Integer,
    Table,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from herald.db.models.webhooks import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEvent,
    WebhookSigningSecret,
    WebhookTarget,
)
from herald.db.models.workspace import Team
from herald.webhooks import retry
from herald.webhooks.attempt import AttemptOutcome
from herald.webhooks.signing import SigningSecret

DUE_STATUSES = ("pending", "retrying")


# -- targets and secrets ------------------------------------------------------------------------


def lock_team_config(session: Session, team_id: str) -> None:
    """Serialise changes of one workspace's webhook configuration until the transaction ends.

    Locks the workspace's row (PostgreSQL; SQLite already runs one writer at a time), so two
    requests at once (a first PUT each, two rotations) run one after the other: the later sees
    what the earlier committed instead of failing on it.
    """
    session.execute(select(Team.id).where(Team.id == team_id).with_for_update())


def get_target(session: Session, team_id: str) -> WebhookTarget | None:
    return session.get(WebhookTarget, team_id)


def signing_secrets(session: Session, team_id: str) -> list[SigningSecret]:
    rows = session.scalars(
        select(WebhookSigningSecret)
        .where(WebhookSigningSecret.team_id == team_id)
        .order_by(WebhookSigningSecret.version)
    ).all()
    return [SigningSecret(r.secret, r.version, r.created_at, r.retired_at) for r in rows]


def add_secret(session: Session, team_id: str, value: str, version: int, now: datetime) -> None:
    session.add(
        WebhookSigningSecret(team_id=team_id, version=version, secret=value, created_at=now)
    )


def retire_current_secret(session: Session, team_id: str, now: datetime) -> int:
    """Retire the current secret and drop ones no longer signing; returns the retired version."""
    current = session.scalars(
        select(WebhookSigningSecret)
        .where(WebhookSigningSecret.team_id == team_id, WebhookSigningSecret.retired_at.is_(None))
        .with_for_update()
    ).one()
    session.execute(
        delete(WebhookSigningSecret).where(
            WebhookSigningSecret.team_id == team_id,
            WebhookSigningSecret.retired_at.is_not(None),
        )
    )
    current.retired_at = now
    return current.version


# -- events and deliveries ----------------------------------------------------------------------


# Built once: events are recorded inside other areas' transactions, so this path stays lean.
_EVENTS = typing.cast(Table, WebhookEvent.__table__)
_DELIVERIES = typing.cast(Table, WebhookDelivery.__table__)
_INSERT_EVENT = insert(_EVENTS)
_INSERT_DELIVERY = insert(_DELIVERIES).returning(_DELIVERIES.c.id)
_TARGET_ENABLED = select(WebhookTarget.enabled).where(WebhookTarget.team_id == bindparam("team_id"))


def target_enabled(session: Session, team_id: str) -> bool | None:
    """Whether the workspace's target is enabled; ``None`` when it has none."""
    value = session.execute(_TARGET_ENABLED, {"team_id": team_id}).scalar_one_or_none()
    return None if value is None else bool(value)


def insert_event(
    session: Session, *, event_id: str, team_id: str, event_type: str, body: str, now: datetime
) -> None:
    session.execute(
        _INSERT_EVENT,
        {
            "id": event_id,
            "team_id": team_id,
            "event_type": event_type,
            "body": body,
            "created_at": now,
        },
    )


def insert_delivery(
    session: Session,
    *,
    team_id: str,
    event_id: str,
    event_type: str,
    is_test: bool,
    now: datetime,
    lease_owner: str | None = None,
    lease_expires_at: datetime | None = None,
) -> int:
    params = {
        "team_id": team_id,
        "event_id": event_id,
        "event_type": event_type,
        "is_test": is_test,
        "status": "pending",
        "attempt_count": 0,
        "created_at": now,
        "next_attempt_at": now,
        "lease_owner": lease_owner,
        "lease_expires_at": lease_expires_at,
    }
    return int(session.execute(_INSERT_DELIVERY, params).scalar_one())


def due(now: datetime | ColumnElement[datetime]) -> ColumnElement[bool]:
    """Due and not leased (or leased by a dispatcher whose lease expired)."""
    return and_(
        WebhookDelivery.status.in_(DUE_STATUSES),
        WebhookDelivery.next_attempt_at <= now,
        or_(WebhookDelivery.lease_expires_at.is_(None), WebhookDelivery.lease_expires_at < now),
    )


def teams_with_due_deliveries(session: Session, now: datetime, *, limit: int = 1000) -> list[str]:
    """Workspaces with due, unleased deliveries and an enabled target, at most ``limit``, the
    one whose delivery has waited longest first: beyond the limit, a workspace left out of one
    sweep is among the first of a later one."""
    rows = session.scalars(
        select(WebhookDelivery.team_id)
        .join(WebhookTarget, WebhookTarget.team_id == WebhookDelivery.team_id)
        .where(due(now), WebhookTarget.enabled.is_(True))
        .group_by(WebhookDelivery.team_id)
        .order_by(func.min(WebhookDelivery.next_attempt_at), WebhookDelivery.team_id)
        .limit(limit)
    )
    return list(rows)


@dataclass(frozen=True, slots=True)
class LeasedDelivery:
    """Everything one attempt needs, read while the delivery was leased."""

    id: int
    team_id: str
    event_id: str
    event_type: str
    body: bytes
    attempt_count: int  # attempts made before this one
    lease_owner: str
    lease_expires_at: datetime
    url: str
    secrets: tuple[SigningSecret, ...]


def leased_delivery(
    session: Session, delivery_id: int, *, owner: str, expires: datetime
) -> LeasedDelivery:
    """A delivery the caller just created leased to itself (the test endpoint)."""
    delivery = session.get(WebhookDelivery, delivery_id)
    target = get_target(session, delivery.team_id) if delivery is not None else None
    event = session.get(WebhookEvent, delivery.event_id) if delivery is not None else None
    if delivery is None or target is None or event is None:
        raise LookupError(f"delivery {delivery_id} is gone")
    return LeasedDelivery(
        id=delivery.id,
        team_id=delivery.team_id,
        event_id=delivery.event_id,
        event_type=delivery.event_type,
        body=event.body.encode("utf-8"),
        attempt_count=delivery.attempt_count,
        lease_owner=owner,
        lease_expires_at=expires,
        url=target.url,
        secrets=tuple(signing_secrets(session, delivery.team_id)),
    )


@dataclass(frozen=True, slots=True)
class AttemptResult:
    delivery: LeasedDelivery
    outcome: AttemptOutcome
    attempted_at: datetime  # when the attempt started
    finished_at: datetime  # when it ended: retry delays count from here

    @property
    def attempt_number(self) -> int:
        return self.delivery.attempt_count + 1

    @property
    def delivery_status(self) -> retry.DeliveryStatus:
        if self.outcome.succeeded:
            return "succeeded"
        return retry.status_after_failure(self.attempt_number)

    @property
    def next_attempt_at(self) -> datetime | None:
        if self.outcome.succeeded:
            return None
        return retry.next_attempt_at(self.attempt_number, self.finished_at)


# -- reads for the API --------------------------------------------------------------------------


def get_delivery(session: Session, team_id: str, delivery_id: int) -> WebhookDelivery | None:
    return session.scalars(
        select(WebhookDelivery).where(
            WebhookDelivery.id == delivery_id, WebhookDelivery.team_id == team_id
        )
    ).one_or_none()


def recent_test_deliveries(session: Session, team_id: str, limit: int) -> list[WebhookDelivery]:
    return list(
        session.scalars(
            select(WebhookDelivery)
            .where(WebhookDelivery.team_id == team_id, WebhookDelivery.is_test.is_(True))
            .order_by(WebhookDelivery.id.desc())
            .limit(limit)
        )
    )


def attempts_page(
    session: Session, team_id: str, *, start: datetime, end: datetime, offset: int, limit: int
) -> list[WebhookAttempt]:
    """Attempts in ``[start, end]``, newest first."""
    return list(
        session.scalars(
            select(WebhookAttempt)
            .where(
                WebhookAttempt.team_id == team_id,
                WebhookAttempt.attempted_at >= start,
                WebhookAttempt.attempted_at <= end,
            )
            .order_by(WebhookAttempt.attempted_at.desc(), WebhookAttempt.id.desc())
            .offset(offset)
            .limit(limit)
        )
    )


def attempt_counts_by_bucket(
    session: Session, team_id: str, *, start: datetime, end: datetime, bucket_minutes: int
) -> list[tuple[datetime, str, int]]:
    """``(bucket_start, delivery_status, count)`` for attempts in ``[start, end]``.

    Buckets are aligned to multiples of ``bucket_minutes`` since the Unix epoch (so daily
    buckets start at 00:00Z).
    """
    width = bucket_minutes * 60
    bucket: ColumnElement[Any]
    if session.get_bind().dialect.name == "postgresql":
        epoch = func.extract("epoch", WebhookAttempt.attempted_at)
        bucket = func.floor(epoch / width)
    else:
        # SQLite keeps naive UTC text; strftime('%s') reads it as UTC seconds, rounding its
        # fraction to the millisecond (59.9999 s is the next second, maybe the next bucket):
        # the whole seconds only, as PostgreSQL's floor counts them.
        whole = func.substr(WebhookAttempt.attempted_at, 1, 19)
        seconds = cast(func.strftime("%s", whole), Integer)
        bucket = seconds // width
    bucket_col = bucket.label("bucket")
    rows = session.execute(
        select(bucket_col, WebhookAttempt.delivery_status, func.count())
        .where(
            WebhookAttempt.team_id == team_id,
            WebhookAttempt.attempted_at >= start,
            WebhookAttempt.attempted_at <= end,
        )
        .group_by(bucket_col, WebhookAttempt.delivery_status)
    ).all()
    out = [
        (datetime.fromtimestamp(int(b) * width, UTC), str(status), int(count))
        for b, status, count in rows
    ]
    return sorted(out, key=lambda r: (r[0], r[1]))


def delivery_counts_by_status(session: Session) -> dict[str, int]:
    """Deliveries waiting (``pending``, ``retrying``) and given up (``failed``): the metrics."""
    rows = session.execute(
        select(WebhookDelivery.status, func.count())
        .where(WebhookDelivery.status.in_((*DUE_STATUSES, "failed")))
        .group_by(WebhookDelivery.status)
    ).all()
    counts = dict.fromkeys((*DUE_STATUSES, "failed"), 0)
    counts.update({status: int(count) for status, count in rows})
    return counts
