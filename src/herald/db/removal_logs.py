"""Pruning the removal logs after ``HERALD_HISTORY_DAYS``: ``content_removals`` and
``entity_removals``.

Each log holds one row per row deleted outright, with a number (written by a database trigger).
Readers catch up by reading the removals numbered above the last one they applied: every search
index for content (:mod:`herald.search.projection`), each process's in-memory entity views for
entities (:mod:`herald.entities.service`). The readers are not known to the database (indexes on
disk, processes), so a log cannot wait for them: it is kept for the history window, then cut.
What was cut is recorded, and a reader whose last number is below it has missed removals it can
no longer read: it rebuilds from the database instead of keeping deleted rows.

The daily history job calls :func:`prune_removals` for each log:

1. it records today's mark, the number the log's readers have reached
   (``<log>:day:YYYY-MM-DD`` in ``removal_marks``);
2. the newest mark older than the window says up to which number every removal is older than
   the window: those are deleted, oldest first, :data:`BATCH` per transaction, each batch
   raising the ``<log>:pruned`` mark in the same transaction;
3. the marks older than that one are deleted (a window's worth of marks stays).

The newest removal of each log always stays: on SQLite the next number is one above the highest
recorded, and readers compare numbers with the highest one, so it may never go down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from herald.db.models.content import ContentItem, ContentRemoval, RemovalMark
from herald.db.models.entity import EntityRemoval
from herald.db.session import SessionFactory

BATCH = 1000


def _content_reached(session: Session) -> int:
    items = session.scalar(select(func.max(ContentItem.change_seq)))
    removals = session.scalar(select(func.max(ContentRemoval.change_seq)))
    return max(int(items or 0), int(removals or 0))


def _entities_reached(session: Session) -> int:
    return int(session.scalar(select(func.max(EntityRemoval.seq))) or 0)


@dataclass(frozen=True, slots=True)
class RemovalLog:
    name: str
    key: InstrumentedAttribute[Any]  # the removed row's id (the log's primary key)
    seq: InstrumentedAttribute[Any]  # its number
    reached: Callable[[Session], int]  # the highest number readers may have applied

    @property
    def pruned(self) -> str:
        return f"{self.name}:pruned"

    @property
    def day(self) -> str:
        return f"{self.name}:day:"


CONTENT = RemovalLog(
    "content", ContentRemoval.content_id, ContentRemoval.change_seq, _content_reached
)
ENTITIES = RemovalLog("entities", EntityRemoval.entity_id, EntityRemoval.seq, _entities_reached)
LOGS = (CONTENT, ENTITIES)


@dataclass(frozen=True, slots=True)
class PrunedRemovals:
    rows: int  # removals deleted by this pass
    through: int  # the log's ``pruned`` mark after it (0: nothing was ever pruned)


def pruned_through(session: Session, log: RemovalLog = CONTENT) -> int:
    """The highest number of a removal deleted from ``log`` (0: none)."""
    mark = session.get(RemovalMark, log.pruned)
    return 0 if mark is None else int(mark.change_seq)


def record_mark(session: Session, now: datetime, log: RemovalLog = CONTENT) -> None:
    """Today's mark of ``log``: the number reached now (the first call of the day)."""
    name = f"{log.day}{now.date().isoformat()}"
    if session.get(RemovalMark, name) is None:
        session.add(RemovalMark(name=name, change_seq=log.reached(session), taken_at=now))


def prune_removals(
    sessions: SessionFactory, *, now: datetime, before: datetime, log: RemovalLog = CONTENT
) -> PrunedRemovals:
    """Record today's mark of ``log``, then delete its removals every one of which is older
    than ``before`` (known from the newest mark taken before it)."""
    with sessions.write() as session:
        record_mark(session, now, log)
    with sessions.read() as session:
        cut = session.execute(
            select(RemovalMark.change_seq, RemovalMark.taken_at)
            .where(RemovalMark.name.startswith(log.day), RemovalMark.taken_at < before)
            .order_by(RemovalMark.taken_at.desc())
            .limit(1)
        ).first()
        newest = session.scalar(select(func.max(log.seq)))
        through = pruned_through(session, log)
    if cut is None:
        return PrunedRemovals(0, through)
    upto = min(int(cut.change_seq), int(newest or 0) - 1)  # the newest removal stays
    deleted = 0
    while True:
        with sessions.write() as session:
            rows = session.execute(
                select(log.key, log.seq).where(log.seq <= upto).order_by(log.seq).limit(BATCH)
            ).all()
            if rows:
                session.execute(
                    delete(log.key.class_)
                    .where(log.key.in_([row[0] for row in rows]))
                    .where(log.seq <= upto)  # not one removed again since
                    .execution_options(synchronize_session=False)
                )
                through = max(through, *(int(row[1]) for row in rows))
                _raise_pruned(session, log, through, now)
        deleted += len(rows)
        if len(rows) < BATCH:
            break
    with sessions.write() as session:
        session.execute(
            delete(RemovalMark)
            .where(RemovalMark.name.startswith(log.day), RemovalMark.taken_at < cut.taken_at)
            .execution_options(synchronize_session=False)
        )
    return PrunedRemovals(deleted, through)


def _raise_pruned(session: Session, log: RemovalLog, through: int, now: datetime) -> None:
    mark = session.get(RemovalMark, log.pruned, with_for_update=True)
    if mark is None:
        session.add(RemovalMark(name=log.pruned, change_seq=through, taken_at=now))
    elif mark.change_seq < through:
        mark.change_seq = through
        mark.taken_at = now
