"""The durable job queue's one table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base, JSONType


class Job(Base):
    """One unit of durable work.

    ``unique_key`` names a logical job: a second enqueue while one is *queued* is dropped (a
    partial unique index, Procrastinate's "queueing lock"), and a queued job does not start while
    another with its key is *running* (its "lock"); an enqueue during a run is kept and runs after,
    so no change is missed. Succeeded jobs are deleted in the same transaction as their work;
    failed ones stay for inspection.
    """

    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
    )
    kind: Mapped[str] = mapped_column(String(64))
    lane: Mapped[str] = mapped_column(String(32), default="default")
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    unique_key: Mapped[str | None] = mapped_column(String(255))
    team_id: Mapped[str | None] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(16))  # queued | running | failed
    priority: Mapped[int] = mapped_column(Integer, default=0)
    run_at: Mapped[datetime]
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer)
    lease_expires_at: Mapped[datetime | None]
    worker_id: Mapped[str | None] = mapped_column(String(120))
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]

    __table_args__ = (
        # Claims find the workspaces with queued jobs by a skip scan over team_id, then read each
        # workspace's line in (priority DESC, run_at, id) order and stop at LIMIT: per lane here,
        # per kind (batch claims of one kind) below.
        Index("ix_jobs_claim", "lane", "status", "team_id", priority.desc(), "run_at", "id"),
        # The "no other job with this key is running" check of a claim.
        Index("ix_jobs_unique_key_status", "unique_key", "status"),
        Index("ix_jobs_kind_claim", "kind", "status", "team_id", priority.desc(), "run_at", "id"),
        Index(
            "uq_jobs_queued_unique_key",
            "unique_key",
            unique=True,
            sqlite_where=text("status = 'queued'"),
            postgresql_where=text("status = 'queued'"),
        ),
    )


class JobTurn(Base):
    """When each workspace of a lane was last served by a claim (a sequence number, not a time,
    so a frozen or coarse clock still orders turns). Claims serve the workspace with the oldest
    turn first: round-robin between workspaces, whatever their priorities or backlog."""

    __tablename__ = "job_turns"

    lane: Mapped[str] = mapped_column(String(32), primary_key=True)
    team_key: Mapped[str] = mapped_column(String(40), primary_key=True)  # "" for system jobs
    served: Mapped[int] = mapped_column(BigInteger, default=0)


class RateBucket(Base):
    """One token bucket per API key, shared by every API process on one database (PostgreSQL):
    ``tokens`` as of ``updated_at`` (epoch seconds); each request refills, then takes one."""

    __tablename__ = "rate_buckets"

    bucket: Mapped[str] = mapped_column(String(120), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    allowed: Mapped[bool] = mapped_column(Boolean, default=True)  # the last request's verdict
