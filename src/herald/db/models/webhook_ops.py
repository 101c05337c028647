"""Webhook operations beyond delivery: replays requested and the target's audit trail."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base

_BIGINT = BigInteger().with_variant(Integer(), "sqlite")


class WebhookReplay(Base):
    """One replay request: what it covered and how many deliveries it re-sent (rate limit too)."""

    __tablename__ = "webhook_replays"

    id: Mapped[int] = mapped_column(_BIGINT, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(16))  # delivery | window
    window_start: Mapped[datetime | None]
    window_end: Mapped[datetime | None]
    delivery_count: Mapped[int] = mapped_column(Integer)
    requested_at: Mapped[datetime]

    __table_args__ = (Index("ix_webhook_replays_team_requested", "team_id", "requested_at"),)


class WebhookTargetAudit(Base):
    """Changes to a target the workspace did not make itself (the automatic pause) and its
    re-enabling: who, when, why."""

    __tablename__ = "webhook_target_audit"

    id: Mapped[int] = mapped_column(_BIGINT, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    action: Mapped[str] = mapped_column(String(32))  # auto_paused | re_enabled
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime]

    __table_args__ = (Index("ix_webhook_target_audit_team_at", "team_id", "at"),)
