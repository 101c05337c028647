"""Retention: items published before a limit are deleted, exactly as a deletion request does.

The limit is ``HERALD_RETENTION_DAYS`` (0 keeps everything), unless the item's polled source has
its own ``retention_days`` (0 keeps that source's items forever). An item is deleted when its
publication time is more than the limit's days before now. Items ingested from files or the API,
and items of a source since removed, follow the global limit.

A daily job applies the policy (:mod:`herald.content.tasks`); ``herald content retention``
applies it at once. Applying it twice removes nothing more: it is idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.content.deletion import ContentSelector, delete_content
from herald.core.clock import Clock
from herald.db.models.ingest import Source
from herald.db.session import SessionFactory

ACTOR = "retention"


@dataclass(frozen=True, slots=True)
class RetentionScope:
    """One policy: the global one (``source_id`` None) or a source's override."""

    source_id: str | None
    days: int
    selector: ContentSelector

    @property
    def cutoff(self) -> datetime:
        assert self.selector.published_before is not None
        return self.selector.published_before


@dataclass(frozen=True, slots=True)
class RetentionOutcome:
    scope: RetentionScope
    deleted: int
    deletion_id: str | None


def cutoff_for(now: datetime, days: int) -> datetime:
    """Items published before this time are past a ``days`` retention."""
    return now - timedelta(days=days)


def retained_from(now: datetime, days: int) -> date | None:
    """The first UTC date whose items a ``days`` retention may still keep (None: no limit).

    Every item of an earlier date was published before the cut-off."""
    if days <= 0:
        return None
    return cutoff_for(now, days).date()


def retention_scopes(session: Session, *, default_days: int, now: datetime) -> list[RetentionScope]:
    """The policies to apply now, sources with an override first, then the global one."""
    overrides = [
        (str(source_id), int(days or 0))
        for source_id, days in session.execute(
            select(Source.id, Source.retention_days)
            .where(Source.retention_days.is_not(None))
            .order_by(Source.id)
        )
    ]
    scopes = [
        RetentionScope(
            source_id=source_id,
            days=days,
            selector=ContentSelector(
                source_ids=(source_id,), published_before=cutoff_for(now, days)
            ),
        )
        for source_id, days in overrides
        if days  # 0: this source's items are kept forever
    ]
    if default_days > 0:
        scopes.append(
            RetentionScope(
                source_id=None,
                days=default_days,
                selector=ContentSelector(
                    published_before=cutoff_for(now, default_days),
                    exclude_source_ids=tuple(source_id for source_id, _ in overrides),
                ),
            )
        )
    return scopes


def apply_retention(
    sessions: SessionFactory,
    *,
    default_days: int,
    clock: Clock,
    on_batch: Callable[[int], None] | None = None,
) -> list[RetentionOutcome]:
    """Delete what the policy no longer keeps; one recorded deletion per scope that matched."""
    now = clock.now()
    with sessions.read() as session:
        scopes = retention_scopes(session, default_days=default_days, now=now)
    outcomes = []
    for scope in scopes:
        report = delete_content(
            sessions,
            scope.selector,
            actor=ACTOR,
            reason="retention",
            clock=clock,
            on_batch=on_batch,
        )
        outcomes.append(RetentionOutcome(scope, report.deleted, report.deletion_id))
    return outcomes
