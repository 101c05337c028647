"""Keeping a search index in step with the database: a projection caught up by change sequence.

Each index (the Tantivy directory, this process's vector graph, the PostgreSQL lexical table)
records the highest change sequence it has applied, its watermark. Catching up reads the rows
changed since, applies them, and moves the watermark, all idempotently: applying a change twice
leaves the same index. A search first runs :meth:`ProjectionSync.catch_up`, whose fast path is
one indexed aggregate query, so a write is visible to every process as soon as it has committed.

PostgreSQL hands out sequence numbers before commit, so a transaction may commit number 10 after
another committed 11. Projections therefore watch a range below their watermark: the count and
sum of sequences in it change when such a late commit lands, and the rows there are re-read; the
ones an index already holds at the same sequence are skipped. The range starts at the lowest of:
``watermark - margin``, the lowest number a transaction still held uncommitted at this process's
last read (each holds an advisory lock on its numbers until it ends, so one open for any time,
while any number of others commit, is still caught), and this process's own last watermark (a
process sharing an index with others re-reads what they applied since). SQLite has one writer at
a time, its sequences commit in order, and its margin is 0.

The removal log is pruned after ``HERALD_HISTORY_DAYS`` (:mod:`herald.db.removal_logs`). A
projection whose watermark is below the highest removal pruned has missed deletions it can no
longer read (an index left offline for longer than that): it is emptied and rebuilt from the
database, never kept with the deleted items in it. So is one that recorded the identity of
another database (:mod:`herald.db.identity`: a restore or a copy made since, or the settings now
point elsewhere); one that recorded none (built before identities) records it and is kept.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from typing import Protocol

import numpy as np
from sqlalchemy.orm import Session

from herald.db.identity import read_identity
from herald.db.removal_logs import pruned_through
from herald.search.documents import content_key
from herald.search.feed import (
    Change,
    ChangeSummary,
    changed_since,
    in_flight_floor,
    load_changes,
    summarize,
)
from herald.search.lexical import LexicalIndex
from herald.search.vectors import VectorIndex

log = logging.getLogger(__name__)

POSTGRES_MARGIN = 1000
BATCH = 1000


class Projection(Protocol):
    name: str

    def applied_seq(self) -> int: ...

    def refresh(self) -> None:
        """See what other processes applied (reload readers)."""
        ...

    def known_seqs(self, keys: Sequence[int]) -> dict[int, int]:
        """The sequence at which each key was applied; keys not held are left out."""
        ...

    def drop_if_before(self, floor: int) -> bool:
        """Empty the projection (watermark 0) if it has applied some changes but none up to
        ``floor``; True if it did. Decided under the projection's own lock."""
        ...

    def database_id(self) -> str | None:
        """The identity of the database it was built from (None: none recorded)."""
        ...

    def bind_database(self, identity: str) -> bool:
        """Record ``identity``; a projection that recorded another one is emptied first
        (watermark 0). True if it was emptied. Decided under the projection's own lock."""
        ...

    def apply(self, batches: Iterator[list[Change]], upto: int, *, since: int) -> int:
        """Apply the changes and set the watermark to ``upto``; the number of items written (a
        deleted item's removal is applied but not counted: a rebuild reports what it holds).

        ``since`` is the watermark the changes were chosen against (what the projection held
        when they were read)."""
        ...


class ProjectionSync:
    """Catches one projection up with the database; one catch-up at a time per process."""

    def __init__(self, projection: Projection, *, margin: int, embedding_model: str | None) -> None:
        self.projection = projection
        self.margin = margin
        self.embedding_model = embedding_model
        self._verified: ChangeSummary | None = None
        self._lock = threading.Lock()
        # PostgreSQL: below this, every change had committed (or rolled back) at the last read.
        self._floor: int | None = None
        # The changes above the floor this sync applied, at their sequence: re-read ranges skip
        # them without asking the projection (a long transaction holds the floor down).
        self._seen: dict[str, int] = {}

    def _low(self, watermark: int) -> int:
        low = max(watermark - self.margin, 0)
        return low if self._floor is None else min(low, self._floor)

    def is_current(self, session: Session, memo: dict[int, ChangeSummary] | None = None) -> bool:
        low = self._low(self.projection.applied_seq())
        if memo is None:
            return summarize(session, low) == self._verified
        if low not in memo:
            memo[low] = summarize(session, low)
        return memo[low] == self._verified

    def catch_up(self, session: Session, memo: dict[int, ChangeSummary] | None = None) -> int:
        """Apply what changed; returns the number of items applied (0 on the fast path).

        ``memo`` shares the freshness query between projections checked together."""
        if self.is_current(session, memo):
            return 0
        with self._lock:
            if self.is_current(session):
                return 0
            self.projection.refresh()
            self._drop_if_other_database(session)
            self._drop_if_too_old(session)
            watermark = self.projection.applied_seq()
            low = self._low(watermark)
            in_flight = in_flight_floor(session) if self.margin else None  # before the read
            changed = changed_since(session, low)
            needed = self._needed(changed, watermark)
            top = max([watermark] + [seq for _, seq in changed])
            applied = 0
            if needed or top != watermark:
                applied = self.projection.apply(
                    self._batches(session, needed), top, since=watermark
                )
            if self.margin:
                self._floor = top if in_flight is None else min(top, in_flight - 1)
            new_low = self._low(top)
            self._remember(changed, top, new_low)
            above = [seq for _, seq in changed if seq > new_low]
            self._verified = ChangeSummary(new_low, len(above), sum(above), max([new_low, *above]))
            return applied

    def _drop_if_other_database(self, session: Session) -> None:
        current = read_identity(session)  # None: unknown (migrations pending), kept
        recorded = self.projection.database_id()
        if current is None or recorded == current:
            return
        if self.projection.bind_database(current):
            log.warning(
                "search index built from another database (a restore or a copy made since, or "
                "HERALD_DATABASE_URL changed): emptied, it is rebuilt from the database",
                extra={"index": self.projection.name, "built_from": recorded, "database": current},
            )
            self._verified = None
            self._floor = None
            self._seen = {}

    def _drop_if_too_old(self, session: Session) -> None:
        floor = pruned_through(session)
        before = self.projection.applied_seq()
        if floor and self.projection.drop_if_before(floor):
            log.warning(
                "search index too old: removals it had not applied were pruned from the log "
                "(HERALD_HISTORY_DAYS); emptied, it is rebuilt from the database",
                extra={"index": self.projection.name, "applied_seq": before, "pruned": floor},
            )
            self._verified = None
            self._seen = {}

    def reset(self) -> None:
        """Forget what was verified (after a rebuild cleared the projection)."""
        with self._lock:
            self._verified = None
            self._floor = None
            self._seen = {}

    def _remember(self, changed: list[tuple[str, int]], top: int, low: int) -> None:
        if not self.margin:
            return
        if self.projection.applied_seq() < top:  # not applied (the index was rebuilt meanwhile)
            self._seen = {}
            return
        self._seen = {cid: seq for cid, seq in self._seen.items() if seq > low}
        self._seen.update((cid, seq) for cid, seq in changed if seq > low)

    def _needed(self, changed: list[tuple[str, int]], watermark: int) -> list[str]:
        seen = self._seen
        margin_rows = [(c, seq) for c, seq in changed if seq <= watermark and seen.get(c) != seq]
        known = self.projection.known_seqs([content_key(cid) for cid, _ in margin_rows])
        needed = [cid for cid, seq in changed if seq > watermark]
        # Below the watermark, only rows whose sequence the index has not seen. A deleted item the
        # index does not hold is re-read too (cheap: it applies as nothing).
        needed += [cid for cid, seq in margin_rows if known.get(content_key(cid)) != seq]
        return list(dict.fromkeys(needed))

    def _batches(self, session: Session, content_ids: list[str]) -> Iterator[list[Change]]:
        for start in range(0, len(content_ids), BATCH):
            yield load_changes(
                session, content_ids[start : start + BATCH], embedding_model=self.embedding_model
            )


class TantivyProjection:
    """The embedded lexical index: shared by every process on one HERALD_HOME.

    Changes are chosen before the index lock is taken, and another process may write the index
    in between. Under the lock, changes chosen against another watermark than the index now has
    are left to the next catch-up, which chooses again: an index emptied meanwhile (a rebuild)
    would otherwise get a few items and a watermark claiming all the others; and with
    ``one_snapshot`` (SQLite: the changes were read in one snapshot, maybe older than what
    another process applied since) a deleted item's text could be written back. On PostgreSQL
    the items are read under the lock, current, so changes chosen against an older watermark
    are still applied (their margin may hold commits the other process did not see).
    """

    name = "tantivy"

    def __init__(self, lexical: LexicalIndex, *, one_snapshot: bool = False) -> None:
        self.lexical = lexical
        self.one_snapshot = one_snapshot

    def applied_seq(self) -> int:
        return self.lexical.applied_seq()

    def refresh(self) -> None:
        self.lexical.reload()

    def known_seqs(self, keys: Sequence[int]) -> dict[int, int]:
        return self.lexical.known_seqs(keys)

    def drop_if_before(self, floor: int) -> bool:
        if not 0 < self.lexical.applied_seq() < floor:
            return False
        with self.lexical.writer() as writer:
            self.lexical.reload()  # another process may have rebuilt it meanwhile
            if not 0 < self.lexical.applied_seq() < floor:
                return False
            writer.clear()
            writer.set_watermark(0)
        return True

    def database_id(self) -> str | None:
        return self.lexical.database_id()

    def bind_database(self, identity: str) -> bool:
        with self.lexical.writer() as writer:
            self.lexical.reload()  # another process may have bound it meanwhile
            recorded = self.lexical.database_id()
            emptied = recorded not in (None, identity)
            if emptied:
                writer.clear()
                writer.set_watermark(0)
        if recorded != identity:
            self.lexical.record_database(identity)  # after the commit that emptied the index
        return emptied

    def apply(self, batches: Iterator[list[Change]], upto: int, *, since: int) -> int:
        applied = 0
        with self.lexical.writer() as writer:
            # Into an empty index (first start, rebuild) items are only added: no delete per
            # item. Decided under the lock: another process may have filled it meanwhile.
            self.lexical.reload()
            current = self.lexical.applied_seq()
            if current < since or (current > since and self.one_snapshot):
                return 0  # the index moved since the changes were chosen: choose again
            fresh = self.lexical.applied_seq() == 0 and self.lexical.searcher().num_docs <= 1
            for batch in batches:
                live = [c.item for c in batch if c.item is not None]
                if fresh:
                    writer.add_new(live)
                else:
                    writer.upsert(live)
                    writer.delete([c.content_id for c in batch if c.item is None])
                applied += len(live)
            writer.set_watermark(upto)
        return applied


class VectorProjection:
    """This process's vector graph, synced from the embeddings stored in the database."""

    name = "vectors"

    def __init__(self, vectors: VectorIndex) -> None:
        self.vectors = vectors
        self._recent: dict[int, int] = {}  # key -> sequence, for keys inside the margin

    def applied_seq(self) -> int:
        return self.vectors.watermark

    def refresh(self) -> None:
        return None

    def known_seqs(self, keys: Sequence[int]) -> dict[int, int]:
        return {k: self._recent[k] for k in keys if k in self._recent}

    def drop_if_before(self, floor: int) -> bool:
        if not 0 < self.vectors.watermark < floor:
            return False
        self.vectors.clear()
        self._recent = {}
        return True

    def database_id(self) -> str | None:
        return self.vectors.database

    def bind_database(self, identity: str) -> bool:
        emptied = self.vectors.database not in (None, identity)
        if emptied:
            self.vectors.clear()  # before the identity changes (see VectorIndex.save)
            self._recent = {}
        self.vectors.database = identity
        return emptied

    def apply(self, batches: Iterator[list[Change]], upto: int, *, since: int) -> int:
        del since  # this process's own graph: its catch-ups run one at a time
        applied = 0
        for batch in batches:
            live = [c.item for c in batch if c.item is not None and c.item.vector is not None]
            gone = [c for c in batch if c.item is None or c.item.vector is None]
            if live:
                self.vectors.upsert(
                    np.array([item.key for item in live], dtype=np.int64),
                    np.stack([item.vector for item in live if item.vector is not None]),
                    [item.published for item in live],
                    [item.media_type for item in live],
                )
            if gone:
                self.vectors.delete(
                    np.array([content_key(c.content_id) for c in gone], dtype=np.int64)
                )
            for change in batch:
                self._recent[content_key(change.content_id)] = change.seq
            applied += len(live)
        self.vectors.watermark = upto
        floor = upto - POSTGRES_MARGIN
        if len(self._recent) > 4 * POSTGRES_MARGIN:
            self._recent = {k: s for k, s in self._recent.items() if s > floor}
        return applied
