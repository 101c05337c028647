"""Monitors: saved searches on schedules, their runs, result stores and per-date ledger.

Semantics are in docs/monitors.md.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, Float, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base, JSONType

# A dated job is "in flight" while queued (including waiting to retry) or running. At most one per
# (monitor, date): the database enforces "never queued twice" even for concurrent requests.
IN_FLIGHT_WHERE = "kind = 'dated' AND status IN ('queued', 'running')"
SCHEDULED_WHERE = "kind = 'scheduled'"


class Monitor(Base):
    __tablename__ = "monitors"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))  # active | disabled
    search: Mapped[dict[str, Any]] = mapped_column(JSONType)
    frequency: Mapped[str] = mapped_column(String(8))  # hourly | daily
    timezone: Mapped[str] = mapped_column(String(64))
    minute: Mapped[int | None] = mapped_column(Integer)  # hourly
    run_time: Mapped[str | None] = mapped_column(String(5))  # daily, HH:MM
    next_run_at: Mapped[datetime | None]  # the next slot; null once disabled
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    disabled_at: Mapped[datetime | None]

    __table_args__ = (
        Index("ix_monitors_team_created", "team_id", "created_at"),
        Index("ix_monitors_due", "status", "next_run_at"),
    )


class MonitorRun(Base):
    """A run: a parent (``scheduled``, ``manual`` = run-now, ``backfill``) or a ``dated`` job.

    A parent's ``id`` is its ``task_id``. Its ``summary`` keeps the request's outcome counts and
    the dates it did not queue. A dated run belongs to one parent and one published date.
    """

    __tablename__ = "monitor_runs"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    monitor_id: Mapped[str] = mapped_column(ForeignKey("monitors.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(16))
    parent_run_id: Mapped[str | None] = mapped_column(
        ForeignKey("monitor_runs.id", ondelete="CASCADE")
    )
    published_date: Mapped[date | None] = mapped_column(Date)
    slot_at: Mapped[datetime | None]  # scheduled parents: the schedule slot it ran
    status: Mapped[str] = mapped_column(String(16))
    requested_count: Mapped[int] = mapped_column(Integer, default=0)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    already_complete: Mapped[bool | None]
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    result_count: Mapped[int | None] = mapped_column(Integer)
    new_result_count: Mapped[int | None] = mapped_column(Integer)
    latest_indexed_content_at: Mapped[datetime | None]
    error_message: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (
        Index("ix_monitor_runs_monitor_created", "monitor_id", "created_at"),
        Index("ix_monitor_runs_parent", "parent_run_id"),
        Index(
            "uq_monitor_runs_in_flight",
            "monitor_id",
            "published_date",
            unique=True,
            sqlite_where=text(IN_FLIGHT_WHERE),
            postgresql_where=text(IN_FLIGHT_WHERE),
        ),
        Index(
            "uq_monitor_runs_slot",
            "monitor_id",
            "slot_at",
            unique=True,
            sqlite_where=text(SCHEDULED_WHERE),
            postgresql_where=text(SCHEDULED_WHERE),
        ),
    )


class MonitorResult(Base):
    """One content item in a monitor's result store (never twice: the key is the pair).

    A dated job that finds the item again rewrites the row (and its score) only if the item's
    publication or enrichment time changed: in steady state most captures are repeats and write
    nothing.
    """

    __tablename__ = "monitor_results"

    monitor_id: Mapped[str] = mapped_column(
        ForeignKey("monitors.id", ondelete="CASCADE"), primary_key=True
    )
    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), primary_key=True
    )
    published_date: Mapped[date] = mapped_column(Date)
    published_at: Mapped[datetime]
    score: Mapped[float] = mapped_column(Float)
    # enrichment completion of the item when last captured: the high-water-mark clock
    enriched_at: Mapped[datetime | None]
    first_captured_at: Mapped[datetime]
    first_run_id: Mapped[str] = mapped_column(String(36))

    # One secondary index serves both the results list (newest first) and the high-water mark
    # of a date (a published_at range): every index costs a write per captured item.
    __table_args__ = (Index("ix_monitor_results_published", "monitor_id", "published_at"),)


class MonitorLedgerEntry(Base):
    """The per-date ledger: the latest dated job of any origin for (monitor, published date)."""

    __tablename__ = "monitor_ledger"

    monitor_id: Mapped[str] = mapped_column(
        ForeignKey("monitors.id", ondelete="CASCADE"), primary_key=True
    )
    published_date: Mapped[date] = mapped_column(Date, primary_key=True)
    status: Mapped[str] = mapped_column(String(16))  # running | succeeded | failed | skipped
    run_id: Mapped[str] = mapped_column(String(36))
    run_origin: Mapped[str] = mapped_column(String(16))  # scheduled | manual | backfill
    run_at: Mapped[datetime]  # when the latest job started (queued: when it was queued)
    latest_indexed_content_at: Mapped[datetime | None]
    result_count: Mapped[int] = mapped_column(Integer, default=0)
    error_message: Mapped[str | None] = mapped_column(Text)
    # first time a job for the date succeeded having started 72 h after its midnight; never reset
    completed_at: Mapped[datetime | None]
    updated_at: Mapped[datetime]

    __table_args__ = (Index("ix_monitor_ledger_status", "monitor_id", "status"),)
