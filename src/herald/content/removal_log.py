"""Pruning the removal log (``content_removals``) after ``HERALD_HISTORY_DAYS``.

Every search index learns of hard-deleted items by reading the removals numbered above its
watermark. The indexes on disk (each home's Tantivy directory, each process's saved vector graph)
are not known to the database, so the log cannot wait for them: it is kept for the history
window, then cut. What was cut is recorded, and an index whose watermark is below it has missed
removals it can no longer read; it is emptied and rebuilt from the database at its next catch-up
(:meth:`herald.search.projection.ProjectionSync.catch_up`) instead of keeping deleted items.

The daily history job calls :func:`prune_removals`:

1. it records today's mark, the change sequence number the database has reached
   (``day:YYYY-MM-DD`` in ``content_removal_marks``);
2. the newest mark older than the window says up to which number every removal is older than
   the window: those are deleted, oldest first, :data:`BATCH` per transaction, each batch
   raising the ``pruned`` mark in the same transaction;
3. the marks older than that one are deleted (a window's worth of marks stays).

The newest removal always stays: on SQLite the next change number is one above the highest in
``content_items`` and ``content_removals``, and an index compares its watermark with that highest
number to notice a restored database, so neither may go down.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from herald.db.models.content import ContentItem, ContentRemoval, ContentRemovalMark
from herald.db.session import SessionFactory

BATCH = 1000
PRUNED = "pruned"
_DAY = "day:"


@dataclass(frozen=True, slots=True)
class PrunedRemovals:
    rows: int  # removals deleted by this pass
    through: int  # the ``pruned`` mark after it (0: nothing was ever pruned)


def pruned_through(session: Session) -> int:
    """The highest change sequence number of a removal deleted from the log (0: none)."""
    mark = session.get(ContentRemovalMark, PRUNED)
    return 0 if mark is None else int(mark.change_seq)


def record_mark(session: Session, now: datetime) -> None:
    """Today's mark: the change sequence number reached now (the first call of the day)."""
    name = f"{_DAY}{now.date().isoformat()}"
    if session.get(ContentRemovalMark, name) is not None:
        return
    items = session.scalar(select(func.max(ContentItem.change_seq)))
    removals = session.scalar(select(func.max(ContentRemoval.change_seq)))
    reached = max(int(items or 0), int(removals or 0))
    session.add(ContentRemovalMark(name=name, change_seq=reached, taken_at=now))


def prune_removals(sessions: SessionFactory, *, now: datetime, before: datetime) -> PrunedRemovals:
    """Record today's mark, then delete the removals every one of which is older than
    ``before`` (known from the newest mark taken before it)."""
    with sessions.write() as session:
        record_mark(session, now)
    with sessions.read() as session:
        cut = session.execute(
            select(ContentRemovalMark.change_seq, ContentRemovalMark.taken_at)
            .where(ContentRemovalMark.name.startswith(_DAY), ContentRemovalMark.taken_at < before)
            .order_by(ContentRemovalMark.taken_at.desc())
            .limit(1)
        ).first()
        newest = session.scalar(select(func.max(ContentRemoval.change_seq)))
        through = pruned_through(session)
    if cut is None:
        return PrunedRemovals(0, through)
    upto = min(int(cut.change_seq), int(newest or 0) - 1)  # the newest removal stays
    deleted = 0
    while True:
        with sessions.write() as session:
            rows = session.execute(
                select(ContentRemoval.content_id, ContentRemoval.change_seq)
                .where(ContentRemoval.change_seq <= upto)
                .order_by(ContentRemoval.change_seq)
                .limit(BATCH)
            ).all()
            if rows:
                session.execute(
                    delete(ContentRemoval)
                    .where(ContentRemoval.content_id.in_([r.content_id for r in rows]))
                    .where(ContentRemoval.change_seq <= upto)  # not one removed again since
                    .execution_options(synchronize_session=False)
                )
                through = max(through, *(int(r.change_seq) for r in rows))
                _raise_pruned(session, through, now)
        deleted += len(rows)
        if len(rows) < BATCH:
            break
    with sessions.write() as session:
        session.execute(
            delete(ContentRemovalMark)
            .where(ContentRemovalMark.name.startswith(_DAY))
            .where(ContentRemovalMark.taken_at < cut.taken_at)
            .execution_options(synchronize_session=False)
        )
    return PrunedRemovals(deleted, through)


def _raise_pruned(session: Session, through: int, now: datetime) -> None:
    mark = session.get(ContentRemovalMark, PRUNED, with_for_update=True)
    if mark is None:
        session.add(ContentRemovalMark(name=PRUNED, change_seq=through, taken_at=now))
    elif mark.change_seq < through:
        mark.change_seq = through
        mark.taken_at = now
