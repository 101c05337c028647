"""A monitor's Atom feed: at most one secret URL per monitor, stored only as a hash."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base


class MonitorFeed(Base):
    __tablename__ = "monitor_feeds"

    monitor_id: Mapped[str] = mapped_column(
        ForeignKey("monitors.id", ondelete="CASCADE"), primary_key=True
    )
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    # SHA-256 hex of the URL's secret token: a leaked database does not leak readable feeds.
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]

    __table_args__ = (Index("uq_monitor_feeds_token_hash", "token_hash", unique=True),)
