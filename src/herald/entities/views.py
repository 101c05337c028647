"""A process's in-memory view of the entity table, kept up to date with the rows written since
it was built (:class:`SyncedView`): the linking knowledge base and the entity search index are
each filled through one."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from herald.db.in_flight import ENTITY_REMOVAL_LOCK_BASE, lowest_in_flight
from herald.db.removal_logs import ENTITIES, pruned_through
from herald.entities import repository, table_changes
from herald.entities.model import EntityRecord

log = logging.getLogger(__name__)


class SyncedView:
    """An in-memory view of the entity table, caught up with the rows written since.

    Cheap when nothing changed (one aggregate query). When something did, it looks at the rows
    written since a little before the last change seen, so a transaction that committed late
    with an earlier timestamp is still picked up: first how many rows carry each timestamp
    there, then the versions (``id``, ``updated_at``) at the timestamps whose count changed, and
    loads only rows it has not seen in that version. Right after the 40,000-entity seed every
    enrichment batch discovers entities: re-reading the whole seed each time cost 3.5 s per
    batch, reading its 40,000 versions each time about 60 ms.

    Deleted rows (a merged entity, a candidate whose items were all deleted) are read from the
    removal log (``entity_removals``, written by a trigger) above the last number read; on
    PostgreSQL (numbers are taken before commit) also a margin below it, and from the lowest
    number a deletion still held uncommitted at the last read (:mod:`herald.db.in_flight`),
    however many removals were numbered after it; an id stored again since
    (discovered anew) stays. The view keeps no set of the ids it loaded. The log is pruned after
    ``HERALD_HISTORY_DAYS`` (:mod:`herald.db.removal_logs`): a view that read no removal since
    the ones pruned is emptied (``reset``) and built again from the database.
    """

    MARGIN = timedelta(minutes=2)
    POSTGRES_REMOVAL_MARGIN = 1000

    def __init__(
        self,
        add: Callable[[EntityRecord], None],
        remove: Callable[[str], None] | None = None,
        reset: Callable[[], None] | None = None,
    ) -> None:
        self._add = add
        self._remove = remove
        self._reset = reset  # empty what the view fills, before it is built again
        self._signature: table_changes.Signature | None = None
        # Inside the last margin window: the ids seen at each timestamp.
        self._seen: dict[datetime, set[str]] = {}
        self._removed = 0  # the highest entity removal number read
        # PostgreSQL: read removals above this next time too (a deletion was still uncommitted).
        self._removal_floor: int | None = None
        self._lock = threading.Lock()

    def catch_up(self, session: Session) -> int:
        with self._lock:
            signature = table_changes.entity_signature(session)
            if signature == self._signature:
                return 0
            if self._signature is not None and self._removed < pruned_through(session, ENTITIES):
                log.warning(
                    "entity view too old: removals it had not read were pruned from the log "
                    "(HERALD_HISTORY_DAYS); it is built again from the database"
                )
                if self._reset is not None:
                    self._reset()
                self._signature = None
                self._seen = {}
                self._removal_floor = None
            if self._signature is not None and signature[2:4] != self._signature[2:4]:
                # A merge leaves a redirect (other deletions are read from the removal log).
                if self._remove is not None:
                    for entity_id in table_changes.redirected_ids(session):
                        self._remove(entity_id)
                # A merge deletes as well as writes: counts per timestamp no longer tell what
                # is new (a stamp can hold as many rows as before, other ones), so the rows of
                # the recent timestamps are read again.
                self._seen = {}
            if self._signature is None:  # the rows loaded now reflect every removal before
                self._removed = signature[6]
            latest = self._signature[1] if self._signature else None
            since = latest - self.MARGIN if latest is not None else None
            stamps = table_changes.entity_stamp_counts_since(session, since)
            seen = {stamp: self._seen.get(stamp, set()) for stamp in stamps}
            changed = [stamp for stamp, count in stamps.items() if len(seen[stamp]) != count]
            versions = table_changes.entity_versions_at(session, changed) if changed else {}
            wanted = [eid for eid, stamp in versions.items() if eid not in seen[stamp]]
            records = repository.entities_by_ids(session, wanted) if wanted else []
            for record in records:
                self._add(record)
            if self._signature is not None:
                self._forget_removed(session)
            for stamp in changed:
                seen[stamp] = set()
            for eid, stamp in versions.items():
                seen[stamp].add(eid)
            self._seen = seen
            self._signature = signature
            return len(records)

    def _forget_removed(self, session: Session) -> None:
        """Remove the ids deleted since the last removal read and not stored again."""
        margin = 0
        if session.get_bind().dialect.name == "postgresql":
            margin = self.POSTGRES_REMOVAL_MARGIN
        low = max(self._removed - margin, 0)
        if self._removal_floor is not None:
            low = min(low, self._removal_floor)
        in_flight = lowest_in_flight(session, ENTITY_REMOVAL_LOCK_BASE)  # before the read
        removals = table_changes.entity_removals_since(session, low)
        self._removed = max([self._removed, *(seq for _, seq in removals)])
        self._removal_floor = None if in_flight is None else min(self._removed, in_flight - 1)
        if not removals:
            return
        ids = [entity_id for entity_id, _ in removals]
        stored = table_changes.stored_ids(session, ids)
        if self._remove is not None:
            for entity_id in ids:
                if entity_id not in stored:
                    self._remove(entity_id)
