"""Webhooks: one target per workspace, its signing secrets, events, deliveries and attempts."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base

_BIGINT = BigInteger().with_variant(Integer(), "sqlite")


class WebhookTarget(Base):
    __tablename__ = "webhook_targets"

    team_id: Mapped[str] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    url: Mapped[str] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    # Set when Herald paused a target that failed every attempt for too long; cleared on enable.
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    disabled_at: Mapped[datetime | None]


class WebhookSigningSecret(Base):
    """Kept in full because it must sign; the API only ever shows its preview."""

    __tablename__ = "webhook_signing_secrets"

    id: Mapped[int] = mapped_column(_BIGINT, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    secret: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime]
    retired_at: Mapped[datetime | None]  # set when a rotation replaced it

    __table_args__ = (
        Index("uq_webhook_signing_secrets_team_version", "team_id", "version", unique=True),
    )


class WebhookEvent(Base):
    """The event envelope, serialised once: every attempt signs and sends these exact bytes."""

    __tablename__ = "webhook_events"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    event_type: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]

    __table_args__ = (Index("ix_webhook_events_team_created", "team_id", "created_at"),)


class WebhookDelivery(Base):
    """One event's delivery to the workspace target; the durable unit of delivery work.

    A dispatcher leases a due delivery (``lease_owner``/``lease_expires_at``) before attempting
    it; an attempt's result is recorded only by the lease holder. A lease that expires (the
    process died mid-attempt) makes the delivery due again, so nothing is lost.
    """

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(_BIGINT, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(ForeignKey("webhook_events.id", ondelete="CASCADE"))
    event_type: Mapped[str] = mapped_column(String(64))
    is_test: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))  # pending | retrying | succeeded | failed
    attempt_count: Mapped[int] = mapped_column(Integer)
    last_http_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    last_attempt_at: Mapped[datetime | None]
    next_attempt_at: Mapped[datetime | None]  # null once succeeded or failed
    lease_owner: Mapped[str | None] = mapped_column(String(40))
    lease_expires_at: Mapped[datetime | None]

    __table_args__ = (
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_team_due", "team_id", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_team_test", "team_id", "is_test", "id"),
        Index("ix_webhook_deliveries_event", "event_id"),
    )


class WebhookAttempt(Base):
    """One try of one delivery. ``delivery_status`` is the delivery's status after this try."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(_BIGINT, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    delivery_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE")
    )
    event_id: Mapped[str] = mapped_column(String(40))
    event_type: Mapped[str] = mapped_column(String(64))
    attempt_number: Mapped[int] = mapped_column(Integer)
    delivery_status: Mapped[str] = mapped_column(String(16))
    http_status: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    duration_ms: Mapped[int] = mapped_column(Integer)
    attempted_at: Mapped[datetime]

    __table_args__ = (
        Index("uq_webhook_attempts_delivery_number", "delivery_id", "attempt_number", unique=True),
        Index("ix_webhook_attempts_team_attempted", "team_id", "attempted_at"),
    )
