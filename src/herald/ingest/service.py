"""Storing incoming items: upsert by content id, syndication, change marks and enrichment jobs.

``store_items`` runs in the caller's transaction (it never commits):

- a new content id is **accepted** (inserted); an existing one whose content hash is unchanged is
  a **duplicate** (nothing is written, so re-ingesting a file changes nothing); a changed one is
  **updated** in place (same id, ``version`` + 1), enriched again when something enrichment
  reads changed (:mod:`herald.enrich.inputs`), else keeping its enrichment;
- news and wire items get an ``article_id``: the article of the best-matching earlier copy of the
  same story text (see :mod:`herald.ingest.syndication`), else their own
  (``stable_id("art", canonical_key)``);
- an item an operator deleted (a tombstone of its canonical URL or its own id) is skipped and
  counted as ``tombstoned``: a takedown holds when the source still lists the item;
- every written item gets a change mark (search indexes catch up) and, in the same transaction
  (a rolled-back batch enqueues nothing), an ``enrich.item`` job; an update that keeps its
  enrichment gets what follows enrichment instead (search indexing, clustering for news and
  wire), and its entity links take its new publication time. Once the batch commits, its updates
  are counted in ``herald_ingest_updates_total`` by whether they kept their enrichment.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from herald.content.changes import next_change_seq
from herald.core.clock import Clock
from herald.core.ids import stable_id
from herald.core.storable import printable
from herald.db.session import after_commit
from herald.enrich.queueing import queue_follow_ups
from herald.ingest import repository
from herald.ingest.article_matcher import ArticleMatcher
from herald.ingest.model import (
    IncomingItem,
    ItemError,
    ItemWarning,
    KnownEntry,
    ParseOutcome,
    content_id_for_key,
    storage_problem,
)
from herald.ingest.page_retries import failures_after
from herald.ingest.rows import (
    content_hash,
    count_updates,
    enrichment_input_of_update,
    keep_enrichment,
    stored_row,
)
from herald.ingest.stored_identity import keep_legacy_ids, not_tombstoned
from herald.ingest.syndication import TextFingerprint, fingerprint
from herald.jobs.queue import enqueue_many

__all__ = ["ENRICH_JOB", "IngestReport", "store_items"]

ENRICH_JOB = "enrich.item"


@dataclass
class IngestReport:
    """What a batch did. ``rejected`` and ``warnings`` keep their locations (line numbers)."""

    accepted: int = 0
    updated: int = 0
    duplicates: int = 0
    tombstoned: int = 0  # skipped: an operator deleted the item (herald.content.tombstones)
    syndicated: int = 0  # accepted or updated items that joined an existing article
    kept_enrichment: int = 0  # stored updates that kept their enrichment
    enriched_again: int = 0  # stored updates queued to be enriched again
    rejected: list[ItemError] = field(default_factory=list)
    warnings: list[ItemWarning] = field(default_factory=list)
    changed_ids: list[str] = field(default_factory=list)

    def note(self, outcome: ParseOutcome) -> None:
        """Count an outcome that is not an item (errors, warnings, known entries)."""
        if isinstance(outcome, ItemError):
            self.rejected.append(outcome)
        elif isinstance(outcome, ItemWarning):
            self.warnings.append(outcome)
        elif isinstance(outcome, KnownEntry):
            self.duplicates += 1

    def merge(self, other: IngestReport) -> None:
        self.accepted += other.accepted
        self.updated += other.updated
        self.duplicates += other.duplicates
        self.tombstoned += other.tombstoned
        self.syndicated += other.syndicated
        self.kept_enrichment += other.kept_enrichment
        self.enriched_again += other.enriched_again
        self.rejected.extend(other.rejected)
        self.warnings.extend(other.warnings)
        self.changed_ids.extend(other.changed_ids)

    def summary(self, *, max_messages: int = 20) -> dict[str, Any]:
        """Counts and the first messages; text quoted from the input (an entry's id, title or
        url) has NUL characters and lone surrogates escaped, so a source's ``last_report`` can
        always be stored (PostgreSQL refuses them)."""
        return {
            "accepted": self.accepted,
            "updated": self.updated,
            "duplicates": self.duplicates,
            "tombstoned": self.tombstoned,
            "rejected": len(self.rejected),
            "syndicated": self.syndicated,
            "errors": [
                {
                    "location": printable(e.location),
                    "line": e.line,
                    "reason": printable(e.reason),
                    "ref": None if e.ref is None else printable(e.ref),
                }
                for e in self.rejected[:max_messages]
            ],
            "warnings": [printable(str(w)) for w in self.warnings[:max_messages]],
        }


# Tries of a batch that raced another transaction storing the same items (PostgreSQL).
STORE_ATTEMPTS = 5


class _Raced(Exception):
    """A row this batch read changed before it could lock it: read the batch again."""


def store_items(
    session: Session,
    items: Sequence[IncomingItem],
    *,
    clock: Clock,
    source_id: str | None = None,
    report: IngestReport | None = None,
    fingerprints: Mapping[str, TextFingerprint | None] | None = None,
) -> IngestReport:
    """``fingerprints`` may carry fingerprints computed elsewhere (a parallel parser).

    Two transactions may store the same item at once (two imports, a poll and an import, from
    several processes on PostgreSQL). Rows to update are locked, and their version checked
    against the one read; a row inserted by another transaction since this one read, or
    updated meanwhile, sends the batch back to be read and stored again, inside a savepoint:
    the item is then a duplicate or an update of what the other stored, never a failed batch
    nor a lost version. SQLite has one writer at a time and needs none of this.
    """
    report = report if report is not None else IngestReport()
    postgresql = session.get_bind().dialect.name == "postgresql"
    for attempt in range(1, STORE_ATTEMPTS + 1):
        part = IngestReport()
        try:
            with session.begin_nested() if postgresql else nullcontext():
                _store(session, items, clock, source_id, part, fingerprints or {})
        except (_Raced, IntegrityError, OperationalError) as exc:
            if not postgresql or attempt == STORE_ATTEMPTS or not _raced(exc):
                raise
            continue
        break
    report.merge(part)
    if part.kept_enrichment or part.enriched_again:
        after_commit(session, lambda: count_updates(part.kept_enrichment, part.enriched_again))
    return report


def _raced(exc: Exception) -> bool:
    """Whether ``exc`` is another transaction's write of the same rows (the batch is read and
    stored again), not a problem of the batch itself."""
    if isinstance(exc, _Raced):
        return True
    code = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return code in (UNIQUE_VIOLATION, DEADLOCK_DETECTED)


UNIQUE_VIOLATION = "23505"
DEADLOCK_DETECTED = "40P01"


def _store(
    session: Session,
    items: Sequence[IncomingItem],
    clock: Clock,
    source_id: str | None,
    report: IngestReport,
    precomputed: Mapping[str, TextFingerprint | None],
) -> IngestReport:
    items = _storable(items, report)
    if not items:
        return report
    now = clock.now()
    legacy_ids = [content_id_for_key(key) for item in items for key in item.legacy_keys]
    states = repository.stored_states(session, [item.content_id for item in items] + legacy_ids)
    # Read after the states: a deletion committing in between (PostgreSQL) is seen here, or its
    # row was read and the update below finds it gone and reads the batch again.
    items, tombstoned = not_tombstoned(session, items)
    report.tombstoned += tombstoned
    if not items:
        return report
    items = keep_legacy_ids(items, states)

    # Within one batch the last version of an id wins. Every entry is counted: an earlier
    # identical copy is a duplicate, an earlier different version was updated by the later one.
    latest: dict[str, IncomingItem] = {}
    superseded: dict[str, int] = defaultdict(int)
    for item in items:
        previous = latest.get(item.content_id)
        if previous is not None:
            if content_hash(previous) == content_hash(item):
                report.duplicates += 1
            else:
                superseded[item.content_id] += 1
                report.updated += 1
        latest[item.content_id] = item

    by_id: dict[str, TextFingerprint] = {}
    for cid, item in latest.items():
        if item.media_type == "podcast":
            continue
        found = precomputed.get(cid) if cid in precomputed else fingerprint(item.text)
        if found is not None:
            by_id[cid] = found
    matcher = ArticleMatcher(session, by_id.values())

    inserts: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    tries: list[dict[str, Any]] = []  # unchanged items whose article page was tried again
    new_fingerprints: list[tuple[str, str, bytes, list[int]]] = []
    replaced: list[str] = []
    inputs: dict[str, str] = {}  # updated items: the hash of what enrichment will read
    for cid, item in latest.items():
        digest = content_hash(item)
        state = states.get(cid)
        failures = failures_after(item.page_fetch, state.page_fetch_failures if state else 0)
        if state is not None and not state.deleted and state.content_hash == digest:
            # Nothing to write; versions before the last one in this input changed nothing either.
            report.updated -= superseded[cid]
            report.duplicates += 1 + superseded[cid]
            if failures != state.page_fetch_failures:  # another try of its article page
                tries.append({"id": cid, "page_fetch_failures": failures})
            continue
        article_id = None
        fp = by_id.get(cid)
        if item.media_type != "podcast":
            own = stable_id("art", item.canonical_key)
            matched = matcher.match(cid, fp) if fp is not None else None
            article_id = matched or own
            if matched and matched != own:
                report.syndicated += 1
            if fp is not None:
                matcher.remember(cid, article_id, fp)
                new_fingerprints.append((cid, article_id, fp.to_bytes(), fp.band_keys()))
        row = stored_row(item, digest, article_id, source_id, fp.words if fp else None)
        row["page_fetch_failures"] = failures
        if state is None:
            inserts.append(
                row | {"created_at": now, "updated_at": now, "version": 1 + superseded[cid]}
            )
            report.accepted += 1
        else:
            replaced.append(cid)
            version = state.version + 1 + superseded[cid]
            row |= {"updated_at": now, "version": version, "deleted_at": None}
            if item.published_is_estimate:
                row["published_at"] = state.published_at
            if item.summary is None and not state.summary_provided:
                del row["summary"]  # keep what enrichment wrote
                del row["summary_provided"]
            if item.language is None:  # a given language stays; a detected one is detected
                del row["language"]  # again (until then the earlier detection stands)
                row["language_provided"] = state.language_provided
            inputs[cid] = enrichment_input_of_update(row, state)
            updates.append(row)
            report.updated += 1
        report.changed_ids.append(cid)

    enriched_from = {cid: states[cid].enrichment_input for cid in replaced}
    if replaced and session.get_bind().dialect.name == "postgresql":
        locked = repository.lock_versions(session, replaced)
        if any(locked.get(cid, (None, None))[0] != states[cid].version for cid in replaced):
            raise _Raced
        # Read under the lock: enrichment may have stored results since the states were read.
        enriched_from = {cid: found for cid, (_, found) in locked.items()}
    kept = keep_enrichment(updates, inputs, enriched_from, states)
    report.kept_enrichment += len(kept)
    report.enriched_again += len(updates) - len(kept)
    changed = [row["id"] for row in inserts] + [row["id"] for row in updates]
    if changed:
        # Rows are written with their change mark: marking them afterwards rewrote each row
        # (and, on PostgreSQL, every index entry of it) a second time.
        seq = next_change_seq(session)
        for row in itertools.chain(inserts, updates):
            row["change_seq"] = seq
    repository.insert_items(session, inserts)
    repository.update_items(session, updates)
    repository.update_items(session, tries)
    repository.replace_fingerprints(session, new_fingerprints, drop=replaced)
    to_enrich = [cid for cid in changed if cid not in kept]
    if to_enrich:
        enqueue_many(
            session,
            ENRICH_JOB,
            [({"content_id": cid}, f"enrich:{cid}") for cid in to_enrich],
            clock=clock,
        )
    if kept:
        kept_rows = [row for row in updates if row["id"] in kept]
        repository.redate_entity_links(
            session,
            {
                row["id"]: row["published_at"]
                for row in kept_rows
                if row["published_at"] != states[row["id"]].published_at
            },
        )
        queue_follow_ups(
            session, [(row["id"], row["media_type"]) for row in kept_rows], clock=clock
        )
    return report


def _storable(items: Sequence[IncomingItem], report: IngestReport) -> list[IncomingItem]:
    """Items the database can store; the others are that entry's error (one bad entry must not
    fail the batch's transaction). Entries of the JSON Lines format were checked already, with
    their line numbers; this catches the other adapters' (feeds, ninjs, podcasts)."""
    kept = []
    for item in items:
        problem = storage_problem(item)
        if problem is None:
            kept.append(item)
            continue
        ref = item.url or item.external_id or item.title
        report.rejected.append(ItemError("entry", problem[1], ref=printable(ref)[:300]))
    return kept
