"""Deleting content for good: by id, by URL, or by source domain and publication date.

A deletion removes the item's row from ``content_items``; the database removes what hangs off it
(entities linked to it, its embedding, its fingerprint, its monitor results, its PostgreSQL
search document) by foreign-key cascade. Before the rows go, the item is taken out of its story
cluster (:mod:`herald.clusters.removal`) and out of stored webhook events
(:mod:`herald.webhooks.redaction`); after them, a candidate entity (a name linking discovered)
that no remaining item links to is deleted too (:mod:`herald.entities.staging`). A trigger
records each removed row in ``content_removals`` with a new change sequence number, so the
search index of every process drops it at its next catch-up, wherever the deletion ran.

Each batch is one transaction, and the deletion's record (:class:`ContentDeletion`: who, when,
which selector, how many) is updated in the same transaction: a deletion interrupted between
batches has recorded exactly what it removed, and running it again removes the rest (deleting is
idempotent). The record never holds the content. A deletion by an operator also leaves a
tombstone of each item (hashes of its identities, no content), so ingestion does not store it
again when its source still lists it (:mod:`herald.content.tombstones`); retention leaves none.

On SQLite the deleting connection turns ``secure_delete`` on, so the freed space is overwritten
with zeros; text left in free space by earlier updates of a row, and in the write-ahead log, is
gone after :func:`herald.content.purge.purge_files` (VACUUM and a truncating checkpoint).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, or_, select, text, update
from sqlalchemy.orm import Session

from herald.clusters.removal import forget_contents, hold_clusters
from herald.content.tombstones import tombstone_rows
from herald.core.clock import Clock, isoformat_z
from herald.core.ids import new_id
from herald.db.models.content import ContentDeletion, ContentItem
from herald.db.session import SessionFactory
from herald.entities.staging import drop_unnamed_candidates, linked_candidates
from herald.webhooks.redaction import redact_items

BATCH = 500  # items per transaction: short write locks on SQLite, bounded memory everywhere


@dataclass(frozen=True, slots=True)
class ContentSelector:
    """Which items to delete; every given condition must hold (at least one is needed).

    ``urls``: the URL as given and its canonical form (the caller canonicalises).
    ``source_ids``/``exclude_source_ids``: retention's per-source and global policies.
    """

    content_id: str | None = None
    urls: tuple[str, ...] = ()
    source_domain: str | None = None
    published_before: datetime | None = None
    source_ids: tuple[str, ...] = ()
    exclude_source_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not (self.content_id or self.urls or self.source_domain or self.published_before):
            raise ValueError("a content selector needs an id, a URL, a domain or a date")

    def conditions(self) -> list[ColumnElement[bool]]:
        found: list[ColumnElement[bool]] = []
        if self.content_id is not None:
            found.append(ContentItem.id == self.content_id)
        if self.urls:
            found.append(ContentItem.url.in_(list(self.urls)))
        if self.source_domain is not None:
            found.append(ContentItem.source_domain == self.source_domain)
        if self.published_before is not None:
            found.append(ContentItem.published_at < self.published_before)
        if self.source_ids:
            found.append(ContentItem.source_id.in_(list(self.source_ids)))
        if self.exclude_source_ids:
            found.append(
                or_(
                    ContentItem.source_id.is_(None),
                    ContentItem.source_id.not_in(list(self.exclude_source_ids)),
                )
            )
        return found

    def describe(self) -> dict[str, Any]:
        """The selector as recorded (what the operator asked for; never the content)."""
        described: dict[str, Any] = {}
        if self.content_id is not None:
            described["content_id"] = self.content_id
        if self.urls:
            described["url"] = self.urls[0]
        if self.source_domain is not None:
            described["source_domain"] = self.source_domain
        if self.published_before is not None:
            described["published_before"] = isoformat_z(self.published_before)
        if self.source_ids:
            described["source_ids"] = list(self.source_ids)
        if self.exclude_source_ids:
            described["exclude_source_ids"] = list(self.exclude_source_ids)
        return described


@dataclass(frozen=True, slots=True)
class DeletionReport:
    deletion_id: str | None  # None: nothing matched, nothing recorded
    deleted: int
    clusters_changed: int = 0
    clusters_removed: int = 0


def count_matching(session: Session, selector: ContentSelector) -> int:
    """How many items (live or tombstoned) the selector would delete now."""
    return int(
        session.scalar(select(func.count()).select_from(ContentItem).where(*selector.conditions()))
        or 0
    )


def delete_content(
    sessions: SessionFactory,
    selector: ContentSelector,
    *,
    actor: str,
    clock: Clock,
    reason: str = "request",
    batch_size: int = BATCH,
    on_batch: Callable[[int], None] | None = None,
) -> DeletionReport:
    """Delete every item the selector matches, in batches; records the deletion.

    A deletion by an operator (``reason`` ``request``) leaves a tombstone per item in the same
    transaction (:mod:`herald.content.tombstones`), so ingestion never stores it again; one by
    retention leaves none. Nothing matching: nothing is recorded and ``deletion_id`` is None."""
    deletion_id: str | None = None
    deleted = changed = removed = 0
    while True:
        with sessions.write() as session:
            ids = list(
                session.scalars(
                    select(ContentItem.id)
                    .where(*selector.conditions())
                    .order_by(ContentItem.id)
                    .limit(batch_size)
                )
            )
            now = clock.now()
            if deletion_id is None:
                if not ids:
                    return DeletionReport(deletion_id=None, deleted=0)
                deletion_id = new_id("del")
                session.add(
                    ContentDeletion(
                        id=deletion_id,
                        actor=actor[:200],
                        reason=reason,
                        selector=selector.describe(),
                        deleted_count=0,
                        status="running",
                        started_at=now,
                        finished_at=None,
                    )
                )
                session.flush()
            if not ids:
                session.execute(
                    update(ContentDeletion)
                    .where(ContentDeletion.id == deletion_id)
                    .values(status="done", finished_at=now)
                )
                break
            count, clusters = delete_items(
                session,
                ids,
                now=now,
                still=selector.conditions(),
                tombstone=None if reason == "retention" else deletion_id,
            )
            session.execute(
                update(ContentDeletion)
                .where(ContentDeletion.id == deletion_id)
                .values(deleted_count=ContentDeletion.deleted_count + count)
            )
        deleted += count
        changed += clusters[0]
        removed += clusters[1]
        if on_batch is not None:
            on_batch(count)
    return DeletionReport(
        deletion_id=deletion_id,
        deleted=deleted,
        clusters_changed=changed,
        clusters_removed=removed,
    )


def delete_items(
    session: Session,
    ids: list[str],
    *,
    now: datetime,
    still: Sequence[ColumnElement[bool]] = (),
    tombstone: str | None = None,
) -> tuple[int, tuple[int, int]]:
    """Delete the rows of ``ids`` (at most a batch) and everything that hangs off them; with
    ``still``, only those that still meet these conditions once their rows are locked; with
    ``tombstone`` (a deletion id), leave a tombstone of each deleted row.

    Returns the number of rows deleted and (clusters changed, clusters removed)."""
    if session.get_bind().dialect.name == "sqlite":
        # Freed pages and cells are overwritten with zeros, not left holding the text.
        session.execute(text("PRAGMA secure_delete=ON"))
    hold_clusters(session, now=now)  # the order clustering takes them in: state, then items
    ids = _lock_rows(session, ids, still)
    if not ids:
        return 0, (0, 0)
    cleanup = forget_contents(session, ids, now=now)
    redact_items(session, ids)  # stored webhook events keep no title or URL of them
    if tombstone is not None:
        tombstone_rows(session, ids, deletion_id=tombstone, now=now)
    candidates = linked_candidates(session, ids)
    result = session.execute(
        delete(ContentItem)
        .where(ContentItem.id.in_(ids))
        .execution_options(synchronize_session=False)
    )
    drop_unnamed_candidates(session, candidates)  # names found only in the deleted items
    return int(getattr(result, "rowcount", 0) or 0), (cleanup.changed, cleanup.removed)


def _lock_rows(session: Session, ids: list[str], still: Sequence[ColumnElement[bool]]) -> list[str]:
    """Lock the rows before reading what refers to them; the ids that (still) meet ``still``.

    PostgreSQL (SQLite's single writer holds the database already): a transaction that has just
    written a reference (a monitor result and the event listing the item) holds a key-share lock
    on the row: this waits for it to commit, so what it wrote is read and redacted below. One
    that writes a reference after this waits for the deletion, then fails its foreign-key check
    and is retried without it. A row updated meanwhile (a corrected publication date) is read
    again once locked: it is deleted only if it still matches."""
    return list(
        session.scalars(
            select(ContentItem.id)
            .where(ContentItem.id.in_(ids), *still)
            .order_by(ContentItem.id)
            .with_for_update()
        )
    )


def recent_deletions(session: Session, limit: int = 20) -> list[ContentDeletion]:
    """The latest deletions, newest first."""
    return list(
        session.scalars(
            select(ContentDeletion)
            .order_by(ContentDeletion.started_at.desc(), ContentDeletion.id.desc())
            .limit(limit)
        )
    )
