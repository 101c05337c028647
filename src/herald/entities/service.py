"""The entity knowledge base as a service: seeding, import, search and timelines.

The database is the source of truth. Each process keeps two in-memory views of it, built on first
use and brought up to date from the rows written since (by ``updated_at``) before they are used:
the linking :class:`KnowledgeBase` (workers; active entities only, see
:mod:`herald.entities.staging`) and the :class:`EntitySearchIndex` (API).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from sqlalchemy.orm import Session

from herald.content.changes import mark_changed
from herald.core.dates import Window
from herald.core.files import sha256_file
from herald.core.pagination import Page, PageRequest
from herald.db.models.content import ContentItem
from herald.db.removal_logs import ENTITIES, pruned_through
from herald.entities import repository
from herald.entities.jsonl import ImportProblem, parse_entity_lines
from herald.entities.kb import KnowledgeBase, seed_path
from herald.entities.merge import find_merges, merge_keys
from herald.entities.model import EntityRecord
from herald.entities.search import EntityHit, EntitySearchIndex
from herald.entities.staging import ACTIVE, REJECTED
from herald.errors import NotFound
from herald.readiness import warmup

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

SEARCH_MAX_LIMIT = 100
TIMELINE_MAX_LIMIT = 100
TIMELINE_DEFAULT_DAYS = 60


@dataclass(frozen=True, slots=True)
class ImportReport:
    written: int
    problems: list[ImportProblem]
    merged: int = 0  # discovered entities merged into the ones written


def open_entity_file(path: Path) -> TextIO:
    """A text stream over an import file, decompressing ``.gz`` and ``.bz2`` as it reads."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    if path.suffix == ".bz2":
        return bz2.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def import_entities(
    session: Session,
    lines: Iterable[str],
    *,
    now: datetime,
    origin: str = "import",
    replace: bool = True,
    batch: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Import JSON Lines entities in the caller's transaction; bad lines are reported, skipped."""
    return import_records(
        session,
        parse_entity_lines(lines, origin=origin),
        now=now,
        replace=replace,
        batch=batch,
        progress=progress,
    )


def import_records(
    session: Session,
    records: Iterable[EntityRecord | ImportProblem],
    *,
    now: datetime,
    replace: bool = True,
    batch: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Write parsed entities in batches (any source format); problems are collected."""
    problems: list[ImportProblem] = []
    pending: list[EntityRecord] = []
    written = 0
    for parsed in records:
        if isinstance(parsed, ImportProblem):
            problems.append(parsed)
            continue
        pending.append(parsed)
        if len(pending) >= batch:
            written += repository.upsert_entities(session, pending, now=now, replace=replace)
            if progress:
                progress(len(pending))
            pending = []
    if pending:
        written += repository.upsert_entities(session, pending, now=now, replace=replace)
        if progress:
            progress(len(pending))
    merged = merge_discovered(session, now=now)
    return ImportReport(written, problems, merged)


def merge_discovered(session: Session, *, now: datetime, batch: int = 2000) -> int:
    """Merge every discovered entity that is the same as a seeded or imported one (see
    :mod:`herald.entities.merge`) into it, in the caller's transaction; returns how many.

    The content whose links moved is marked changed, so search indexes re-read its entities.
    """
    repository.lock_for_merging(session)
    merged = 0
    changed: set[str] = set()
    after = ""
    while discovered := repository.discovered_after(session, after, batch):
        after = discovered[-1].id
        known = repository.known_by_keys(session, (k for r in discovered for k in merge_keys(r)))
        for merge in find_merges(discovered, known):
            changed.update(
                repository.merge_entity(session, merge.discovered.id, merge.into.id, now=now)
            )
            log.debug(
                "entity %s (%s, discovered) merged into %s (%s)",
                merge.discovered.id,
                merge.discovered.display_name,
                merge.into.id,
                merge.into.display_name,
            )
            merged += 1
    ordered = sorted(changed)
    for start in range(0, len(ordered), batch):
        mark_changed(session, ordered[start : start + batch])
    if merged:
        log.info(
            "merged %d discovered entities into the knowledge base's (%d items re-linked)",
            merged,
            len(ordered),
        )
    return merged


# What loading a seed does beyond writing its entities; a release that changes it has every
# database read its seed once more. 2: discovered entities the seed knows are merged into it.
SEED_LOAD_RULES = 2


def seed_knowledge_base(
    runtime: Runtime, *, force: bool = False, progress: Callable[[int], None] | None = None
) -> int:
    """Load the configured seed into the database once per seed file (``HERALD_ENTITY_SEED``).

    Each file is remembered by the digest of its content (and of :data:`SEED_LOAD_RULES`), so a
    release whose bundled seed gained or corrected entities (or a changed seed file of the
    operator's) adds the entities the database lacks, and updates those still as an earlier seed
    wrote them, at the first start after the change; discovered entities the seed now knows are
    merged into its entities. An entity an operator imported or edited is never overwritten; a
    second process seeding at the same time only finds nothing left to write.
    ``progress`` is called with the number of lines of each batch read.
    """
    source = runtime.settings.entity_seed
    if source == "none":
        return 0
    path = seed_path() if source == "bundled" else Path(source)
    digest = hashlib.sha256(f"{sha256_file(path)}:{SEED_LOAD_RULES}".encode()).hexdigest()
    with runtime.sessions.read() as session:
        if not force and repository.seed_loaded(session, digest):
            return 0
    with open_entity_file(path) as handle, runtime.sessions.write() as session:
        report = import_entities(
            session,
            handle,
            now=runtime.clock.now(),
            origin="seed",
            replace=False,
            progress=progress,
        )
        repository.record_seed_load(
            session,
            digest=digest,
            source="bundled" if source == "bundled" else str(path),
            written=report.written,
            now=runtime.clock.now(),
        )
    for problem in report.problems[:10]:
        log.warning("seed line %d skipped: %s", problem.line, problem.message)
    log.info("entity seed loaded: %d entities from %s", report.written, path)
    return report.written


class _SyncedView:
    """An in-memory view of the entity table, caught up with the rows written since.

    Cheap when nothing changed (one aggregate query). When something did, it looks at the rows
    written since a little before the last change seen, so a transaction that committed late
    with an earlier timestamp is still picked up: first how many rows carry each timestamp
    there, then the versions (``id``, ``updated_at``) at the timestamps whose count changed, and
    loads only rows it has not seen in that version. Right after the 40,000-entity seed every
    enrichment batch discovers entities: re-reading the whole seed each time cost 3.5 s per
    batch, reading its 40,000 versions each time about 60 ms.

    Deleted rows (a merged entity, a candidate whose items were all deleted) are read from the
    removal log (``entity_removals``, written by a trigger) above the last number read, and a
    margin below it on PostgreSQL (numbers are taken before commit); an id stored again since
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
        self._signature: repository.Signature | None = None
        # Inside the last margin window: the ids seen at each timestamp.
        self._seen: dict[datetime, set[str]] = {}
        self._removed = 0  # the highest entity removal number read
        self._lock = threading.Lock()

    def catch_up(self, session: Session) -> int:
        with self._lock:
            signature = repository.entity_signature(session)
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
            if self._signature is not None and signature[2:4] != self._signature[2:4]:
                # A merge leaves a redirect (other deletions are read from the removal log).
                if self._remove is not None:
                    for entity_id in repository.redirected_ids(session):
                        self._remove(entity_id)
                # A merge deletes as well as writes: counts per timestamp no longer tell what
                # is new (a stamp can hold as many rows as before, other ones), so the rows of
                # the recent timestamps are read again.
                self._seen = {}
            if self._signature is None:  # the rows loaded now reflect every removal before
                self._removed = signature[6]
            latest = self._signature[1] if self._signature else None
            since = latest - self.MARGIN if latest is not None else None
            stamps = repository.entity_stamp_counts_since(session, since)
            seen = {stamp: self._seen.get(stamp, set()) for stamp in stamps}
            changed = [stamp for stamp, count in stamps.items() if len(seen[stamp]) != count]
            versions = repository.entity_versions_at(session, changed) if changed else {}
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
        removals = repository.entity_removals_since(session, max(self._removed - margin, 0))
        if not removals:
            return
        ids = [entity_id for entity_id, _ in removals]
        stored = repository.stored_ids(session, ids)
        if self._remove is not None:
            for entity_id in ids:
                if entity_id not in stored:
                    self._remove(entity_id)
        self._removed = max(self._removed, *(seq for _, seq in removals))


class EntityStore:
    """The process's views of the knowledge base (one per runtime)."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._seeded = False
        self._kb: KnowledgeBase | None = None
        self._kb_view: _SyncedView | None = None
        self._index: EntitySearchIndex | None = None
        self._index_view: _SyncedView | None = None
        self._lock = threading.Lock()

    def ensure_seeded(self) -> None:
        if not self._seeded:
            with self._lock:
                if not self._seeded:
                    seed_knowledge_base(self._runtime)
                    self._seeded = True

    def knowledge_base(self) -> KnowledgeBase:
        """The linking knowledge base, up to date with the database: its active entities only
        (a candidate name never changes how another item is linked)."""
        self.ensure_seeded()
        with self._lock:
            if self._kb is None:
                kb = self._kb = KnowledgeBase()

                def put(record: EntityRecord) -> None:
                    if record.status == ACTIVE:
                        kb.add(record)
                    else:
                        kb.remove(record.id)

                def reset() -> None:  # the view is built again (see _SyncedView)
                    nonlocal kb
                    kb = self._kb = KnowledgeBase()

                self._kb_view = _SyncedView(put, lambda eid: kb.remove(eid), reset)
        assert self._kb_view is not None
        with self._runtime.sessions.read() as session:
            self._kb_view.catch_up(session)
        return self._kb

    def search_index(self) -> EntitySearchIndex:
        """The search index, up to date with the database (candidates included: an item links
        to them; rejected entities left out).

        It never seeds: an API request must not wait for 40,000 inserts. Workers and
        `herald serve` seed at start (warm-up), `herald entities seed` does it by hand.
        """
        with self._lock:
            if self._index is None:
                index = self._index = EntitySearchIndex()

                def put(record: EntityRecord) -> None:
                    if record.status == REJECTED:
                        index.remove(record.id)
                    else:
                        index.add(record)

                def reset() -> None:
                    nonlocal index
                    index = self._index = EntitySearchIndex()

                self._index_view = _SyncedView(put, lambda eid: index.remove(eid), reset)
        assert self._index_view is not None
        with self._runtime.sessions.read() as session:
            self._index_view.catch_up(session)
        return self._index


def get_entity_store(runtime: Runtime) -> EntityStore:
    return runtime.service("entity_store", lambda: EntityStore(runtime))


def search_entities(
    runtime: Runtime, query: str, *, entity_kinds: Sequence[str] | None, limit: int
) -> list[EntityHit]:
    index = get_entity_store(runtime).search_index()
    return index.search(query, entity_kinds=set(entity_kinds or ()) or None, limit=limit)


def entity_timeline(
    session: Session,
    entity_id: str,
    *,
    window: Window,
    media_types: Sequence[str] | None,
    page: PageRequest,
) -> tuple[str, Page[ContentItem]]:
    """Content in which the entity appears, newest first (the same for every workspace), with
    the entity's id: an entity merged into another answers with that one's id and timeline."""
    (entity_id,) = repository.current_ids(session, [entity_id])
    if repository.get_entity(session, entity_id) is None:
        raise NotFound(f"no entity {entity_id}")
    rows = repository.timeline_rows(
        session,
        entity_id,
        window=window,
        media_types=media_types,
        offset=page.offset,
        limit=page.fetch_limit,
    )
    return entity_id, Page.from_overfetch(rows, page)


@warmup("entity-search")
def build_search_index(runtime: Runtime) -> None:
    """Build the entity search index at start-up rather than on the first search."""
    get_entity_store(runtime).search_index()
