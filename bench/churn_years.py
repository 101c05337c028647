"""What years of churn leave on disk: files under ``HERALD_HOME`` and the rows Herald keeps.

    .venv/bin/python bench/churn_years.py [--days 60] [--per-day 100] [--retention 10]
                                          [--database-url URL]

On a fresh data directory (a temporary SQLite file by default), each simulated day: a day of
new items is stored (the demo corpus's news texts, a new external id each), a tenth of the items
already kept are updated (a new title and body), the clock moves one day, retention deletes what
is older than ``--retention`` days, every job runs as a worker would (enrichment by the real
models, search indexing), one search brings this process's vector graph up to date and the graph
is saved, and the history job prunes what it prunes. The item count is steady once retention
starts deleting (``per-day`` x ``retention``), so anything that keeps growing grows from churn
alone.

Printed every ``--every`` days: the items kept, the SQLite file (pages in use, free pages), the
Tantivy directory (bytes, segments, deleted documents), the vector snapshot (bytes, rows, free
rows), the rest of ``HERALD_HOME``, the rows of every table with more than the item count's
tenth, and how many rows of ``cluster_term_stats`` count a key that no kept item has any more
(left behind by updates and deletions).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEMO = Path(__file__).resolve().parents[1] / "src" / "herald" / "data" / "demo" / "demo.jsonl.gz"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _tree_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _lexical_stats(runtime: Any) -> tuple[int, int, int]:
    """Bytes of the Tantivy directory, its segments, and deleted documents not purged."""
    from herald.search.service import get_search

    lexical = get_search(runtime).index.lexical  # type: ignore[attr-defined]
    path: Path = lexical.path
    meta = json.loads((path / "meta.json").read_text())
    segments = meta["segments"]
    deleted = sum((s.get("deletes") or {}).get("num_deleted_docs", 0) for s in segments)
    return _tree_bytes(path), len(segments), deleted


def _vector_stats(home: Path) -> tuple[int, int, int, int]:
    """Bytes of the vector directory, snapshots in it, rows in the current one, free rows."""
    import numpy as np

    path = home / "index" / "vectors"
    pointer = path / "vectors.json"
    if not pointer.exists():
        return _tree_bytes(path), 0, 0, 0
    snapshot = path / json.loads(pointer.read_text())["snapshot"]
    with np.load(snapshot / "rows.npz") as arrays:
        keys = arrays["keys"]
    snapshots = len(list(path.glob("snapshot-*")))
    return _tree_bytes(path), snapshots, len(keys), int((keys < 0).sum())


def _sqlite_pages(runtime: Any) -> tuple[int, int, int] | None:
    from sqlalchemy import text

    if runtime.engine.dialect.name != "sqlite":
        return None
    with runtime.sessions.read() as session:
        pages = int(session.execute(text("PRAGMA page_count")).scalar_one())
        free = int(session.execute(text("PRAGMA freelist_count")).scalar_one())
        size = int(session.execute(text("PRAGMA page_size")).scalar_one())
    return pages, free, size


def _row_counts(runtime: Any) -> dict[str, int]:
    from sqlalchemy import func, select

    from herald.db.base import Base

    counts = {}
    with runtime.sessions.read() as session:
        for name, table in sorted(Base.metadata.tables.items()):
            counts[name] = int(session.execute(select(func.count()).select_from(table)).scalar())
    return counts


def _orphan_statistics(runtime: Any) -> int:
    """Rows of ``cluster_term_stats`` for a key that no kept item has (in its current version):
    counts of versions or items gone, left behind."""
    from sqlalchemy import select

    from herald.db.models.clusters import ClusterTermStat, StoryClusterMember

    try:
        from herald.clusters.article_keys import keys_of
    except ImportError:  # a version before the record of counted keys
        from herald.clusters.removal import _keys_of as keys_of  # type: ignore[attr-defined]

    with runtime.sessions.read() as session:
        live: set[tuple[str, str]] = set()
        for content_id in session.scalars(select(StoryClusterMember.content_id)):
            for bag, keys in keys_of(session, content_id).items():
                live.update((bag, key) for key in keys)
        stored = session.execute(
            select(ClusterTermStat.bag, ClusterTermStat.key).where(ClusterTermStat.documents > 0)
        )
        return sum(1 for bag, key in stored if (bag, key) not in live)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--per-day", type=int, default=100)
    parser.add_argument("--retention", type=int, default=10, help="retention in days")
    parser.add_argument("--history", type=int, default=15, help="HERALD_HISTORY_DAYS")
    parser.add_argument("--every", type=int, default=10, help="print every this many days")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    args = parser.parse_args()

    from herald.config import Settings
    from herald.content.retention import apply_retention
    from herald.core.clock import FrozenClock
    from herald.db.migrate import upgrade
    from herald.ingest.pipeline import ingest_outcomes, parse_document
    from herald.ingest.sources import Document
    from herald.jobs.history import handle_prune
    from herald.jobs.registry import lanes, load_handlers
    from herald.jobs.worker import Worker
    from herald.runtime import Runtime
    from herald.search.service import get_search

    texts = [
        json.loads(raw)
        for raw in gzip.decompress(DEMO.read_bytes()).splitlines()
        if json.loads(raw).get("media_type") == "news"
    ]
    load_handlers()
    tmp = tempfile.mkdtemp(prefix="herald-churn-")
    home = Path(tmp)
    clock = FrozenClock(datetime(2026, 1, 1, 6, tzinfo=UTC))
    settings = Settings(
        home=home,
        database_url=args.database_url,
        log_level="ERROR",
        retention_days=args.retention,
        history_days=args.history,
    )
    upgrade(settings.resolved_database_url)
    runtime = Runtime(settings, clock=clock)
    worker = Worker(runtime)
    serial = 0
    kept: list[dict[str, Any]] = []

    def store(lines: list[dict[str, Any]]) -> None:
        content = "\n".join(json.dumps(line) for line in lines).encode()
        document = Document(content=content, origin="churn.jsonl")
        outcomes = parse_document(document, format_name="jsonl", clock=runtime.clock)
        ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)

    def run_jobs() -> None:
        while sum(worker.drain(lane) for lane in sorted(lanes())) > 0:
            pass

    print(
        f"database: {runtime.engine.dialect.name}, {args.per_day} items a day, retention "
        f"{args.retention} days, {args.days} days; load average before: {_load()}"
    )
    started = time.monotonic()
    try:
        search = get_search(runtime)
        for day in range(1, args.days + 1):
            now = clock.now()
            fresh = []
            for _ in range(args.per_day):
                base = texts[serial % len(texts)]
                serial += 1
                fresh.append(
                    base
                    | {
                        "external_id": f"churn/{serial}",
                        "title": f"{base['title']} ({serial})",
                        "published_date": now.isoformat().replace("+00:00", "Z"),
                    }
                )
            kept = [
                line
                for line in kept
                if line["published_date"]
                >= (now - timedelta(days=args.retention)).isoformat().replace("+00:00", "Z")
            ]
            updated = []
            for line in kept[::10]:
                other = texts[(serial + len(updated)) % len(texts)]
                updated.append(
                    line | {"title": f"{other['title']} (day {day})", "body": other["body"]}
                )
            store(fresh + updated)
            kept = [line for line in kept if line not in updated] + updated + fresh
            clock.advance(timedelta(days=1))
            run_jobs()  # enrichment, indexing, and retention when it is queued
            apply_retention(runtime.sessions, default_days=args.retention, clock=clock)
            run_jobs()
            with runtime.sessions.read() as session:
                search.catch_up(session)  # both indexes, as a search would
            search.persist()
            _prune(runtime, handle_prune)
            if day % args.every == 0 or day == args.days:
                _report(runtime, home, day, time.monotonic() - started)
        print(f"load average after: {_load()}")
    finally:
        runtime.close()
        if args.keep:
            print(f"kept {home}")
        else:
            import shutil

            shutil.rmtree(home, ignore_errors=True)


def _prune(runtime: Any, handle_prune: Any) -> None:
    """The daily history job, run as its handler (it reads only the runtime of its context)."""

    class _Context:
        def __init__(self) -> None:
            self.runtime = runtime

    handle_prune(_Context(), [])


def _report(runtime: Any, home: Path, day: int, elapsed: float) -> None:
    counts = _row_counts(runtime)
    items = counts["content_items"]
    pages = _sqlite_pages(runtime)
    lex_bytes, segments, deleted = _lexical_stats(runtime)
    vec_bytes, snapshots, rows, free = _vector_stats(home)
    other = {
        str(p.relative_to(home)): _tree_bytes(p) if p.is_dir() else p.stat().st_size
        for p in sorted(home.iterdir())
        if p.name not in {"index", "herald.db", "herald.db-wal", "herald.db-shm"}
    }
    db = (
        f"sqlite {pages[0] * pages[2] / 1e6:.1f} MB ({pages[0]} pages, {pages[1]} free)"
        if pages
        else "postgresql"
    )
    big = {k: v for k, v in counts.items() if v > max(items // 10, 50) and k != "content_items"}
    print(
        f"day {day:4} ({elapsed:5.0f} s): items {items}; {db}; tantivy {lex_bytes / 1e6:.1f} MB "
        f"{segments} segments {deleted} deleted docs; vectors {vec_bytes / 1e6:.1f} MB "
        f"{snapshots} snapshots {rows} rows {free} free; other {other}"
    )
    orphans = _orphan_statistics(runtime)
    print(f"    rows: {big}; term statistics no kept item has: {orphans}", flush=True)


if __name__ == "__main__":
    main()
