"""Workspaces (``team_id``) and their API keys."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base


class Team(Base):
    __tablename__ = "teams"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime]


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16))  # member | admin
    # SHA-256 of the key: keys carry 256 random bits, so a fast hash is safe and lookups stay O(1).
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    key_prefix: Mapped[str] = mapped_column(String(16))  # shown in listings to tell keys apart
    label: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]

    __table_args__ = (Index("ix_api_keys_team_created", "team_id", "created_at"),)
