"""The entity knowledge base as a service: seeding, import, search and timelines.

The database is the source of truth. Each process keeps two in-memory views of it
(:mod:`herald.entities.views`), built on first
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
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from sqlalchemy.orm import Session

from herald.content.changes import mark_changed
from herald.core.dates import Window
from herald.core.files import sha256_file
from herald.core.pagination import Page, PageRequest
from herald.db.models.content import ContentItem
from herald.entities import repository
from herald.entities.jsonl import ImportProblem, parse_entity_lines
from herald.entities.kb import KnowledgeBase, seed_path
from herald.entities.merge import find_merges, merge_keys
from herald.entities.model import EntityRecord
from herald.entities.search import EntityHit, EntitySearchIndex
from herald.entities.staging import ACTIVE, REJECTED
from herald.entities.views import SyncedView
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


class EntityStore:
    """The process's views of the knowledge base (one per runtime)."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._seeded = False
        self._kb: KnowledgeBase | None = None
        self._kb_view: SyncedView | None = None
        self._index: EntitySearchIndex | None = None
        self._index_view: SyncedView | None = None
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

                def reset() -> None:  # the view is built again (see SyncedView)
                    nonlocal kb
                    kb = self._kb = KnowledgeBase()

                self._kb_view = SyncedView(put, lambda eid: kb.remove(eid), reset)
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

                self._index_view = SyncedView(put, lambda eid: index.remove(eid), reset)
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
