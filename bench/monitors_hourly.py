"""Benchmark: one hour of 10,000 hourly monitors over a store of 200,000 items.

    .venv/bin/python bench/monitors_hourly.py [--monitors 10000] [--items 200000]
        [--threads 2] [--database-url postgresql+psycopg://...]

What it measures, on a fresh database:
1. schedule: the scheduler claims every slot of one hour (one scheduled run per monitor, each
   queueing its four dated jobs: today and the trailing three UTC days);
2. execute: the real job worker runs all those dated jobs (search one published date, upsert the
   hits into the monitor's store, counts, ledger, parent status) until the queue is empty.
The target is "one hour's jobs in under 15 minutes", so one machine keeps up.

The search port is a Tantivy BM25 index over title and body with the dated job's window as a
range filter (top 1000), built here over synthetic items (a Zipf vocabulary): the same kind of
index work a dated job costs, without the embedding and rerank stages of the hybrid search
(that service was not available to the monitors area when this was written; the search area
benchmarks it). Every monitor runs its first hour, so all four dates are queued (later hours skip
the third trailing day once it is complete): an upper bound for an hour.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import tantivy
from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.core.ids import stable_id
from herald.db.migrate import upgrade
from herald.db.models.content import ContentItem
from herald.db.models.monitor import MonitorResult, MonitorRun
from herald.jobs.queue import pending_count
from herald.jobs.worker import Worker
from herald.monitors.ports import SEARCH_SERVICE
from herald.monitors.queueing import DATED_JOB_KIND
from herald.monitors.service import create_monitor
from herald.monitors.tasks import schedule_monitors
from herald.runtime import Runtime
from herald.search.types import SearchHit, SearchRequest
from herald.workspaces.service import create_key

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
SYLLABLES = [a + b for a in "bdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))))
    return sorted(words)


class TantivyDaySearch:
    """The search port over a Tantivy index: BM25 on title and body, the window as a filter."""

    def __init__(self, path: Path) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("key", stored=True, indexed=True, fast=True)
        builder.add_text_field("title", stored=False)
        builder.add_text_field("body", stored=False)
        builder.add_integer_field("published", indexed=True, fast=True)
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema, path=str(path))
        self.ids: list[str] = []
        self._lock = threading.Lock()

    def add(self, items: list[tuple[str, str, str, datetime]]) -> None:
        writer = self.index.writer(heap_size=256 * 1024 * 1024)
        for content_id, title, body, published in items:
            doc = tantivy.Document()
            doc.add_integer("key", len(self.ids))
            doc.add_text("title", title)
            doc.add_text("body", body)
            doc.add_integer("published", int(published.timestamp()))
            writer.add_document(doc)
            self.ids.append(content_id)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()

    def search(self, session: Session, request: SearchRequest) -> list[SearchHit]:
        text = self.index.parse_query(request.query, ["title", "body"])
        window = tantivy.Query.range_query(
            self.schema,
            "published",
            tantivy.FieldType.Integer,
            int(request.start.timestamp()),
            int(request.end.timestamp()),
            include_lower=True,
            include_upper=False,
        )
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, text), (tantivy.Occur.Must, window)]
        )
        searcher = self.index.searcher()
        found = searcher.search(query, request.limit).hits
        hits = []
        for score, address in found:
            key = searcher.doc(address)["key"][0]
            hits.append(SearchHit(self.ids[key], round(score / (score + 5.0), 6)))
        return hits


def item_row(
    key: str, title: str, body: str, published: datetime, rng: random.Random
) -> dict[str, object]:
    content_id = stable_id("cnt", key)
    return {
        "id": content_id,
        "canonical_key": key,
        "media_type": "news",
        "url": key,
        "source_name": "Bench",
        "source_domain": f"s{rng.randint(0, 49)}.example",
        "title": title,
        "authors": [],
        "published_at": published,
        "body": body,
        "summary_provided": False,
        "summaries": [],
        "key_points": [],
        "segments": [],
        "word_count": 60,
        "content_hash": content_id,
        "enriched_at": published + timedelta(minutes=rng.randint(1, 120)),
        "change_seq": 0,
        "version": 1,
        "created_at": published,
        "updated_at": published,
    }


def build(runtime: Runtime, search: TantivyDaySearch, args: argparse.Namespace) -> str:
    rng = random.Random(7)
    words = vocabulary(4000, rng)
    weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(words))]
    started = time.monotonic()
    span = timedelta(days=args.days).total_seconds()
    batch: list[dict[str, object]] = []
    indexed: list[tuple[str, str, str, datetime]] = []
    with runtime.sessions.write() as session:
        for n in range(args.items):
            published = NOW - timedelta(seconds=rng.random() * span)
            title = " ".join(rng.choices(words, weights, k=8))
            body = " ".join(rng.choices(words, weights, k=60))
            batch.append(item_row(f"https://bench.example/{n}", title, body, published, rng))
            indexed.append((str(batch[-1]["id"]), title, body, published))
            if len(batch) == 5000:
                session.execute(insert(ContentItem), batch)
                batch.clear()
        if batch:
            session.execute(insert(ContentItem), batch)
    print(f"  content rows:  {args.items:>9,}  {time.monotonic() - started:7.1f} s")
    started = time.monotonic()
    search.add(indexed)
    print(f"  search index:  {args.items:>9,}  {time.monotonic() - started:7.1f} s")

    started = time.monotonic()
    clock = FrozenClock(NOW - timedelta(minutes=1))
    # Queries of mid-frequency words: a few dozen matches per day, like a focused monitor.
    pool = words[150:1500]
    with runtime.sessions.write() as session:
        team_id = create_key(session, workspace="bench", role="member", clock=clock).team_id
        for i in range(args.monitors):
            clock.set(NOW - timedelta(minutes=1) + timedelta(microseconds=i))
            create_monitor(
                session,
                team_id=team_id,
                name=f"bench {i}",
                search={"query": " ".join(rng.sample(pool, 2))},
                schedule={"minute": i % 60},
                description=None,
                status="active",
                clock=clock,
            )
    print(f"  monitors:      {args.monitors:>9,}  {time.monotonic() - started:7.1f} s")
    return team_id


def add_hour_of_items(
    runtime: Runtime, search: TantivyDaySearch, args: argparse.Namespace, hour_start: datetime
) -> int:
    """New items published during one hour: the corpus's hourly rate."""
    rng = random.Random(11)
    words = vocabulary(4000, random.Random(7))
    weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(words))]
    count = max(1, args.items // (args.days * 24))
    rows, indexed = [], []
    for n in range(count):
        published = hour_start + timedelta(seconds=rng.random() * 3600)
        title = " ".join(rng.choices(words, weights, k=8))
        body = " ".join(rng.choices(words, weights, k=60))
        rows.append(item_row(f"https://bench.example/new/{n}", title, body, published, rng))
        indexed.append((str(rows[-1]["id"]), title, body, published))
    with runtime.sessions.write() as session:
        session.execute(insert(ContentItem), rows)
    search.add(indexed)
    return count


def run_hour(
    runtime: Runtime,
    clock: FrozenClock,
    at: datetime,
    args: argparse.Namespace,
    label: str,
) -> float:
    """Claim every slot that is due at ``at`` and run all the dated jobs; total seconds."""
    clock.set(at)
    with runtime.sessions.read() as session:
        before = dated_runs(session)
    started = time.monotonic()
    scheduled = schedule_monitors(runtime)
    schedule_seconds = time.monotonic() - started
    with runtime.sessions.read() as session:
        jobs = pending_count(session, kinds=[DATED_JOB_KIND])
        dated = dated_runs(session) - before
        stored_before = session.scalar(select(func.count()).select_from(MonitorResult)) or 0
    print(label)
    print(
        f"  schedule:      {scheduled:>9,} runs, {dated:,} dated jobs "
        f"({jobs:,} queue entries)  {schedule_seconds:7.1f} s"
    )
    worker = Worker(runtime, lane_threads={"default": args.threads})
    started = time.monotonic()
    worker.start()
    while True:
        time.sleep(2.0)
        with runtime.sessions.read() as session:
            if pending_count(session, kinds=[DATED_JOB_KIND]) == 0:
                break
    execute_seconds = time.monotonic() - started
    worker.stop()
    with runtime.sessions.read() as session:
        stored = session.scalar(select(func.count()).select_from(MonitorResult)) or 0
        failed = session.scalar(
            select(func.count())
            .select_from(MonitorRun)
            .where(MonitorRun.kind == "dated", MonitorRun.status != "succeeded")
        )
    rate = dated / execute_seconds
    print(f"  execute:       {dated:>9,} dated jobs  {execute_seconds:7.1f} s  ({rate:,.0f}/s)")
    print(
        f"  store rows:    {stored:>9,}   (+{stored - stored_before:,}; dated jobs not "
        f"succeeded: {failed})"
    )
    total = schedule_seconds + execute_seconds
    print(f"  total:         {total:9.1f} s = {total / 60:.1f} min")
    return total


def dated_runs(session: Session) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(MonitorRun).where(MonitorRun.kind == "dated")
        )
        or 0
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--monitors", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--days", type=int, default=60, help="published dates span")
    parser.add_argument("--threads", type=int, default=2, help="worker threads")
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="herald-bench-"))
    try:
        settings = Settings(home=home, database_url=args.database_url, log_format="text")
        upgrade(settings.resolved_database_url)
        clock = FrozenClock(NOW)
        runtime = Runtime(settings, clock=clock)
        (home / "index").mkdir(exist_ok=True)
        search = TantivyDaySearch(home / "index")
        runtime.service(SEARCH_SERVICE, lambda: search)
        load = os.getloadavg()
        print(
            f"monitors_hourly: {args.monitors:,} hourly monitors, {args.items:,} items over "
            f"{args.days} days, backend {runtime.backend}, {args.threads} worker threads"
        )
        print(
            f"machine: {os.cpu_count()} cores, SHARED with other engineers "
            f"(load average {load[0]:.1f} at start)"
        )
        print("setup")
        build(runtime, search, args)

        cold = run_hour(runtime, clock, NOW + timedelta(hours=1), args, "hour 1 (cold)")
        # The next hour: an hour's share of new items arrives, every monitor runs again. The
        # third trailing day is complete now and most hits are already in the stores.
        fresh = add_hour_of_items(runtime, search, args, NOW + timedelta(hours=1))
        print(f"  new items:     {fresh:>9,}")
        steady = run_hour(runtime, clock, NOW + timedelta(hours=2), args, "hour 2 (steady)")
        print(
            f"result: one hour's dated jobs take {steady / 60:.1f} min in steady state "
            f"(target < 15 min: {'met' if steady < 900 else 'NOT met'}), {cold / 60:.1f} min for "
            f"the first hour of new monitors; load average at end {os.getloadavg()[0]:.1f}"
        )
        runtime.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
