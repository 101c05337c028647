"""The embedded lexical index (Tantivy): BM25 over the text fields, filters inside the index query.

Text fields (title, summary, key points, body or transcript) are indexed with positions for phrases
and are not stored: results are shown from the database, so the index holds only what it needs to
find and filter. Filter fields are indexed (term lookups) and fast (columnar) fields.

Tantivy allows one writer per directory across processes: writes take the lock briefly and retry
while another process holds it; searchers reload to see other processes' commits.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import tantivy

from herald.search.analysis import INDEX_TOKENIZER, register_analyzers
from herald.search.documents import IndexedItem, content_key
from herald.search.domains import domain_and_parents

SCHEMA_VERSION = 2
TEXT_FIELDS: tuple[str, ...] = ("title", "summary", "key_points", "body")
_META_FILE = "herald_lexical.json"
# The identity of the database the index was built from (herald.db.identity), written after the
# commit that emptied the index for it: never beside another database's items.
_DATABASE_FILE = "herald_database.json"
_WRITER_HEAP = 64_000_000
# The applied change sequence lives in the index itself, in a document of its own, so it commits
# atomically with the changes it describes. It has no text and no date: no search matches it.
WATERMARK_KEY = -1


class IndexLocked(Exception):
    """Another writer kept the index lock for longer than the retry budget."""


class UnusableIndex(RuntimeError):
    """The directory holds a lexical index this version cannot open: another schema, or a
    schema marker left unreadable. `herald index rebuild` replaces it (:func:`discard_unusable`)."""


def build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("key", stored=True, indexed=True, fast=True)
    sb.add_text_field("content_id", stored=True, tokenizer_name="raw", index_option="basic")
    for name in TEXT_FIELDS:
        sb.add_text_field(name, stored=False, tokenizer_name=INDEX_TOKENIZER)
    sb.add_integer_field("published", indexed=True, fast=True)
    sb.add_integer_field("seq", stored=True, fast=True)
    for name in ("media_type", "domain", "language", "entity"):
        sb.add_text_field(name, fast=True, tokenizer_name="raw", index_option="basic")
    return sb.build()


def to_document(item: IndexedItem) -> tantivy.Document:
    doc = tantivy.Document()
    doc.add_integer("key", item.key)
    doc.add_text("content_id", item.content_id)
    doc.add_text("title", item.title)
    doc.add_text("summary", item.summary)
    for point in item.key_points:
        doc.add_text("key_points", point)
    doc.add_text("body", item.body)
    doc.add_integer("published", int(item.published.timestamp()))
    doc.add_integer("seq", item.seq)
    doc.add_text("media_type", item.media_type)
    for domain in domain_and_parents(item.domain):
        doc.add_text("domain", domain)
    if item.language:
        doc.add_text("language", item.language.lower())
    for entity_id in item.entity_ids:
        doc.add_text("entity", entity_id)
    return doc


class LexicalWriter:
    """Buffered changes for one commit; a delete followed by an add of the same key is an update."""

    def __init__(self, writer: tantivy.IndexWriter) -> None:
        self._writer = writer

    def upsert(self, items: Sequence[IndexedItem]) -> None:
        for item in items:
            self._writer.delete_documents_by_term("key", item.key)
            self._writer.add_document(to_document(item))

    def add_new(self, items: Sequence[IndexedItem]) -> None:
        """Adds items known to be absent (a rebuild into an empty index): no delete per item."""
        for item in items:
            self._writer.add_document(to_document(item))

    def delete(self, content_ids: Sequence[str]) -> None:
        for content_id in content_ids:
            self._writer.delete_documents_by_term("key", content_key(content_id))

    def clear(self) -> None:
        self._writer.delete_all_documents()

    def collect_garbage(self) -> None:
        self._writer.garbage_collect_files()

    def set_watermark(self, seq: int) -> None:
        self._writer.delete_documents_by_term("key", WATERMARK_KEY)
        doc = tantivy.Document()
        doc.add_integer("key", WATERMARK_KEY)
        doc.add_integer("seq", seq)
        self._writer.add_document(doc)


class LexicalIndex:
    """A Tantivy index in ``path`` (``None``: in memory, for tests and evaluations)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.schema = build_schema()
        if path is None:
            self._index = tantivy.Index(self.schema)
        else:
            path.mkdir(parents=True, exist_ok=True)
            self._check_version(path)
            self._index = tantivy.Index(self.schema, str(path), reuse=True)
        register_analyzers(self._index)
        self._index.config_reader(reload_policy="manual")
        self._reload_lock = threading.Lock()
        self._applied: int | None = None  # the loaded view's watermark, read once per reload
        self._database: str | None = None  # in memory (no path): the recorded identity

    @staticmethod
    def _check_version(path: Path) -> None:
        meta = path / _META_FILE
        if meta.exists():
            try:
                found = json.loads(meta.read_text()).get("schema_version")
            except (ValueError, AttributeError):  # cut short by a crash, or not ours
                found = "unreadable"
            if found != SCHEMA_VERSION:
                raise UnusableIndex(
                    f"lexical index at {path} has schema {found}, expected {SCHEMA_VERSION}: "
                    "run `herald index rebuild`"
                )
        else:
            written = meta.with_name(f"{meta.name}.{uuid.uuid4().hex[:8]}.tmp")
            written.write_text(json.dumps({"schema_version": SCHEMA_VERSION}))
            os.replace(written, meta)  # whole or absent, whenever the process stops

    @contextmanager
    def writer(self, *, timeout: float = 30.0) -> Iterator[LexicalWriter]:
        """Hold the index lock for one batch and commit it; retries while another process writes."""
        deadline = time.monotonic() + timeout
        delay = 0.005
        while True:
            try:
                raw = self._index.writer(heap_size=_WRITER_HEAP, num_threads=1)
                break
            except ValueError as exc:
                if "LockBusy" not in str(exc) or time.monotonic() > deadline:
                    raise IndexLocked(str(exc)) from exc
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
        try:
            yield LexicalWriter(raw)
            raw.commit()
            raw.wait_merging_threads()  # also releases the lock before we return
        except BaseException:
            raw.rollback()
            raise
        finally:
            del raw
        self.reload()

    def collect_garbage(self) -> None:
        """Remove the files of segments no commit uses any more (deleted documents' terms)."""
        with self.writer() as writer:
            writer.collect_garbage()

    def reload(self) -> None:
        with self._reload_lock:
            self._index.reload()
            self._applied = None

    def searcher(self) -> tantivy.Searcher:
        """One consistent point-in-time view; use it for every step of one search."""
        return self._index.searcher()

    def applied_seq(self) -> int:
        """The change sequence the loaded view of the index reflects (0: nothing applied)."""
        applied = self._applied
        if applied is None:
            applied = self._applied = self._read_watermark()
        return applied

    def _read_watermark(self) -> int:
        searcher = self.searcher()
        query = tantivy.Query.term_query(self.schema, "key", WATERMARK_KEY)
        hits = searcher.search(query, 1).hits
        if not hits:
            return 0
        value = searcher.doc(hits[0][1]).get_first("seq")
        return int(value) if isinstance(value, int) else 0

    def database_id(self) -> str | None:
        """The identity of the database this index was built from (None: none recorded)."""
        return self._database if self.path is None else recorded_database(self.path)

    def record_database(self, identity: str) -> None:
        if self.path is None:
            self._database = identity
            return
        meta = self.path / _DATABASE_FILE
        written = meta.with_name(f"{meta.name}.{uuid.uuid4().hex[:8]}.tmp")
        written.write_text(json.dumps({"database": identity}))
        os.replace(written, meta)

    def known_seqs(self, keys: Sequence[int]) -> dict[int, int]:
        """The change sequence each of ``keys`` was indexed at (absent keys are left out)."""
        if not keys:
            return {}
        searcher = self.searcher()
        query = tantivy.Query.term_set_query(self.schema, "key", list(keys))
        hits = searcher.search(query, len(keys)).hits
        addresses = [address for _, address in hits]
        found = searcher.fast_field_values("key", addresses)
        seqs = searcher.fast_field_values("seq", addresses)
        return {
            int(k): int(s)
            for k, s in zip(found, seqs, strict=True)
            if isinstance(k, int) and isinstance(s, int)
        }

    @property
    def tantivy_index(self) -> tantivy.Index:
        return self._index


@dataclass(frozen=True, slots=True)
class FieldBoosts:
    """BM25 weight of each text field (tuned on the SciFact train split, see bench/)."""

    title: float = 1.0
    summary: float = 1.0
    key_points: float = 1.0
    body: float = 1.0

    def items(self) -> tuple[tuple[str, float], ...]:
        return tuple((name, float(getattr(self, name))) for name in TEXT_FIELDS)


def recorded_database(path: Path) -> str | None:
    """The database identity recorded in the lexical index at ``path``, read without opening it
    (None: none recorded, as in an index built before identities, or no index)."""
    try:
        found = json.loads((path / _DATABASE_FILE).read_text()).get("database")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) else None


def discard_unusable(path: Path) -> bool:
    """Delete the lexical index at ``path`` if this version cannot open it (see
    :class:`UnusableIndex`), so that a rebuild starts from an empty one; True if it did. Only
    for a rebuild: processes of another version still reading it lose it."""
    if not (path / _META_FILE).is_file():
        return False
    try:
        LexicalIndex._check_version(path)
    except UnusableIndex:
        shutil.rmtree(path)
        return True
    return False
