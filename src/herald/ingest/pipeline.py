"""From documents to stored items in chunks, and waiting until what was stored is searchable.

Used by ``herald ingest``, the admin API, source polls and the demo loader. Each chunk of items
is one write unit of work, so a long import commits as it goes (and a running ``herald serve``
on the same database keeps working between chunks); re-running an import is harmless because
unchanged items are duplicates.
"""

from __future__ import annotations

import gc
import gzip
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from herald.core.clock import Clock
from herald.db.session import SessionFactory
from herald.ingest.fetch import Fetcher
from herald.ingest.model import IncomingItem, ParseOutcome, SourceRef
from herald.ingest.parse_workers import ParserPool
from herald.ingest.service import IngestReport, store_items
from herald.ingest.sources import Document, adapter_for, detect_format
from herald.jobs.queue import pending_count

__all__ = [
    "PARALLEL_MIN_LINES",
    "PIPELINE_JOB_KINDS",
    "ingest_json_lines_parallel",
    "ingest_outcomes",
    "parse_document",
    "read_document",
    "wait_until_processed",
]

CHUNK_SIZE = 500
# What makes an ingested item searchable: enrichment, the search index sync, clustering.
PIPELINE_JOB_KINDS = ("enrich.item", "search.sync", "clusters.assign")


def read_document(path: Path, *, source: SourceRef | None = None) -> Document:
    """A file as a document (``.gz`` files are decompressed); ``source`` overrides the source
    the document implies (feeds, JSON Feed, ninjs)."""
    content = path.read_bytes()
    if path.suffix == ".gz":
        content = gzip.decompress(content)
    return Document(content=content, origin=str(path), source=source)


def parse_document(
    document: Document,
    *,
    format_name: str,
    clock: Clock,
    fetcher: Fetcher | None = None,
    is_known: Callable[[str], bool] | None = None,
) -> Iterable[ParseOutcome]:
    """``format_name`` is ``auto``, ``jsonl``, ``rss``, ``ninjs`` or ``jsonfeed``."""
    if format_name == "auto":
        format_name = detect_format(document.content, document.origin, document.content_type)
    adapter = adapter_for(format_name, clock=clock, fetcher=fetcher, is_known=is_known)
    return adapter.parse(document)


def ingest_outcomes(
    sessions: SessionFactory,
    outcomes: Iterable[ParseOutcome],
    *,
    clock: Clock,
    source_id: str | None = None,
    chunk_size: int = CHUNK_SIZE,
    on_progress: Callable[[int], None] | None = None,
    report: IngestReport | None = None,
) -> IngestReport:
    """Store every item of ``outcomes`` (chunk by chunk) and count the rest."""
    report = report if report is not None else IngestReport()
    batch: list[IncomingItem] = []

    def flush() -> None:
        if batch:
            with sessions.write() as session:
                store_items(session, batch, clock=clock, source_id=source_id, report=report)
            if on_progress is not None:
                on_progress(len(batch))
            batch.clear()

    for outcome in outcomes:
        if isinstance(outcome, IncomingItem):
            batch.append(outcome)
            if len(batch) >= chunk_size:
                flush()
        else:
            report.note(outcome)
            if on_progress is not None:
                on_progress(1)
    flush()
    return report


PARALLEL_MIN_LINES = 2_000


def ingest_json_lines_parallel(
    sessions: SessionFactory,
    content: bytes,
    *,
    clock: Clock,
    workers: int,
    chunk_size: int = CHUNK_SIZE,
    on_progress: Callable[[int], None] | None = None,
    report: IngestReport | None = None,
) -> IngestReport:
    """A large JSON Lines file with parsing and fingerprinting spread over ``workers``
    processes (:mod:`herald.ingest.parse_workers`) while this one stores, chunk by chunk, in
    file order (same results as :func:`ingest_outcomes`; fingerprints are plain functions of the
    text)."""
    report = report if report is not None else IngestReport()
    lines = content.splitlines()
    chunks = [
        (start + 1, lines[start : start + chunk_size]) for start in range(0, len(lines), chunk_size)
    ]
    # What is alive now (the loaded modules, the file's chunks) is never garbage: frozen, the
    # collector stops walking it again and again (full collections were a quarter of this
    # process' CPU time).
    gc.freeze()
    try:
        with ParserPool(workers) as pool:
            for outcomes, fingerprints in pool.map(chunks):
                items = [o for o in outcomes if isinstance(o, IncomingItem)]
                for outcome in outcomes:
                    if not isinstance(outcome, IncomingItem):
                        report.note(outcome)
                if items:
                    with sessions.write() as session:
                        store_items(
                            session, items, clock=clock, report=report, fingerprints=fingerprints
                        )
                if on_progress is not None:
                    on_progress(len(outcomes))
    finally:
        gc.unfreeze()
    return report


def wait_until_processed(
    sessions: SessionFactory,
    *,
    work: Callable[[], int],
    sleep: Callable[[float], None] = time.sleep,
    kinds: Iterable[str] = PIPELINE_JOB_KINDS,
    poll_seconds: float = 0.5,
) -> None:
    """Run ``work`` (drain the local queue) until no pipeline job is queued or running.

    A running ``herald serve`` may hold some of the jobs; then this waits for it.
    """
    wanted = tuple(kinds)
    while True:
        done = work()
        with sessions.read() as session:
            pending = pending_count(session, kinds=wanted)
        if pending == 0:
            return
        if done == 0:
            sleep(poll_seconds)
