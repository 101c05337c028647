"""Benchmark: one hour of 10,000 hourly monitors over a store of 200,000 items, real search.

    .venv/bin/python bench/monitors_hourly.py --data DATA [--monitors 10000] [--items 200000]
        [--days 60] [--threads 2] [--processes 0] [--hours 2] [--work DIR] [--profile FILE]
        [--database-url postgresql+psycopg://...]

DATA: the folder holding the ``scifact-beir``, ``ecbplus`` and ``wcep-wikitimes-2015-09`` datasets
(docs/benchmarks.md, "Datasets").

What runs is what the worker runs: the scheduler's claim (``schedule_monitors``) queues each
monitor's scheduled run (four dated jobs: today and the trailing three UTC days), then the real
job ``Worker`` (the class ``herald worker`` runs: 2 threads of the default lane, or with
``--processes N`` N worker processes of this script, each a ``Worker`` like ``herald worker
--no-scheduler``) runs the dated-job handler until the queue is empty. Each dated job searches
its UTC day with Herald's search service (``get_search(runtime)``, the API's: hybrid retrieval,
the second-stage score and the 0.0085 threshold; the embedded adapter on SQLite, the PostgreSQL
adapter with ``--database-url``), then upserts the hits into the monitor's store, counts, ledger,
parent status, events. The only fake is the clock (frozen at the hour being measured).

Data (built once under ``--work``, copied fresh for each measurement):
- items: ``search_synthetic.generate`` (real English passages from SciFact, ECB+ and WCEP mixed
  per item, embedding-model vectors mixed likewise, Zipf domains and entities; see that file),
  with published times compressed from its 365 days to the last ``--days`` days before
  2026-11-25 12:00Z (200,000 items over 60 days: ~3,300 a day, ~140 an hour). Written straight
  into Herald's tables as ingestion and enrichment leave them, then indexed by the production
  rebuild path (``SearchService.rebuild``).
- monitors: queries are SciFact claims, headline fragments of ECB+ and WCEP passages (3-8
  words) and fragments of SciFact titles (3-6 words); 5% carry a quoted phrase, 3% an exclusion.
  Each monitor draws its query from that pool (~6,900 texts) with a Zipf-Mandelbrot popularity
  (rank + 50)^-1 (several customers watch the same popular topics, the long tail is unique): for
  10,000 monitors ~3,600 distinct texts, the most popular one shared by ~60 monitors. Monitors
  with the same text share the query-embedding cache; the counts are printed. Filters: 20% one
  or two media types, 8% include 1-3 of the 500 busiest domains, 4% exclude some, 5% one entity.
  Minutes spread evenly over the hour.

Hours measured: hour 1 runs every monitor's first slot (four dates each, every hit new: the
upper bound); before each later hour an hour's share of new items is ingested (and indexed by
the search catch-up), the third trailing day is complete by then (the 72-hour rule), so later
hours queue three dated jobs per monitor and most hits are already stored.

Printed per hour: wall time of scheduling and of executing, jobs/s, CPU seconds of every
process that did the work, load average (the 2-core machine is shared with other engineers).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import create_engine, func, insert, select, text
from sqlalchemy.orm import Session

import search_scifact_data as scifact
import search_synthetic as synthetic
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.migrate import upgrade
from herald.db.models.content import ContentItem
from herald.db.models.entity import Entity
from herald.db.models.monitor import Monitor, MonitorResult, MonitorRun
from herald.jobs.queue import pending_count
from herald.jobs.registry import load_handlers
from herald.jobs.worker import Worker
from herald.monitors.ports import monitor_search
from herald.monitors.queueing import DATED_JOB_KIND
from herald.monitors.rules import DATED_JOB_LIMIT
from herald.monitors.saved_search import SavedSearch
from herald.monitors.service import create_monitor
from herald.monitors.tasks import schedule_monitors
from herald.runtime import Runtime
from herald.search.service import SearchService, get_search
from herald.workspaces.service import create_key
from public_data import add_data_argument

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PG_ADMIN = os.environ.get("HERALD_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")
PG_DB = "herald_bench_monitors"
PG_BASE = "herald_bench_monitors_base"


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# -- data ------------------------------------------------------------------------------------------
def _compress(value: datetime, days: int) -> datetime:
    """A time of the generator's 365 days before TODAY moved into ``days`` days before NOW."""
    age = (synthetic.TODAY - value).total_seconds() * days / synthetic.SPAN_DAYS
    return NOW - timedelta(seconds=age)


def _retime(batch: synthetic.SyntheticBatch, when: dict[str, datetime]) -> None:
    for row in batch.rows:
        published = when[str(row["id"])]
        row.update(
            published_at=published,
            enriched_at=published + timedelta(minutes=5),
            created_at=published,
            updated_at=published,
        )
    batch.entities = [(c, e, when[c], m) for c, e, _, m in batch.entities]


class Corpus:
    """The synthetic passages of the data folder ``data`` and their vectors (embedded once,
    cached)."""

    def __init__(self, data: Path) -> None:
        from herald.enrich.embedder import build_embedder

        embedder = build_embedder(None)
        self.model = embedder.model_name
        self.passages = synthetic.passages(data)
        self.vectors = synthetic.passage_vectors(self.passages, embedder, data)


def build_base(home: Path, url: str, args: argparse.Namespace, corpus: Corpus) -> None:
    """Items, entities, embeddings and the search index: the state every measurement starts from."""
    started = time.monotonic()
    upgrade(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(insert(Entity), synthetic.entity_rows(NOW))
    for batch in synthetic.generate(args.items, corpus.passages, corpus.vectors):
        _retime(batch, {str(r["id"]): _compress(r["published_at"], args.days) for r in batch.rows})  # type: ignore[arg-type]
        with engine.begin() as conn:
            synthetic.write_batch(conn, batch, corpus.model)
    if url.startswith("postgresql"):
        with engine.begin() as conn:
            conn.execute(text(f"SELECT setval('content_change_seq', {args.items})"))
            conn.execute(text("ANALYZE"))
    engine.dispose()
    print(f"  items:       {args.items:>9,} written       {time.monotonic() - started:7.1f} s")
    started = time.monotonic()
    runtime = Runtime(Settings(home=home, database_url=url, log_format="text"))
    with runtime.sessions.read() as session:
        applied = get_search(runtime).rebuild(session)
    runtime.close()
    print(f"  search index:{applied:>9,} items         {time.monotonic() - started:7.1f} s")


def add_hour_of_items(
    runtime: Runtime, corpus: Corpus, args: argparse.Namespace, hour: int, start: datetime
) -> int:
    """An hour's share of new items (published during the hour before ``start`` + 1 h)."""
    count = max(1, args.items // (args.days * 24))
    batch = next(synthetic.generate(count, corpus.passages, corpus.vectors, seed=100 + hour))
    with runtime.sessions.read() as session:
        top = int(session.scalar(select(func.max(ContentItem.change_seq))) or 0)
    rename: dict[str, str] = {}
    rng = np.random.default_rng(hour)
    for n, row in enumerate(batch.rows):
        old = str(row["id"])
        key = f"{row['canonical_key']}/new-{hour}"
        new = f"cnt_newh{hour}n{n}"
        rename[old] = new
        row.update(id=new, canonical_key=key, url=key, content_hash=new, change_seq=top + n + 1)
        if row["article_id"] is not None:
            row["article_id"] = f"art_newh{hour}n{n}"
        if row["episode_id"] is not None:
            row["episode_id"] = f"ep-new-{hour}-{n}"
    batch.entities = [(rename[c], e, p, m) for c, e, p, m in batch.entities]
    when = {
        str(row["id"]): start + timedelta(seconds=float(rng.random()) * 3600) for row in batch.rows
    }
    _retime(batch, when)
    with runtime.sessions.write() as session:
        synthetic.write_batch(session, batch, corpus.model)
    return count


def query_pool(folder: Path, seed: int = 11) -> list[str]:
    """Monitor queries from the datasets of the data folder ``folder``."""
    rng = np.random.default_rng(seed)
    data = scifact.load(folder / "scifact-beir")
    texts = [q.rstrip(".") for q in data.queries.values()]
    passages = synthetic.passages(folder)
    for p in passages[len(data.docs) :]:
        for sentence in p.sentences[:2]:
            words = sentence.split()
            texts.append(" ".join(words[: int(rng.integers(3, 9))]))
    for doc in data.docs[:3000]:
        words = doc["title"].split()
        start = int(rng.integers(0, max(1, len(words) - 3)))
        texts.append(" ".join(words[start : start + int(rng.integers(3, 7))]))
    texts = list(dict.fromkeys(t.strip(" ,;:") for t in texts if len(t.split()) >= 2))
    rng.shuffle(texts)
    out = []
    for t in texts:
        words = t.split()
        roll = rng.random()
        if roll < 0.05 and len(words) >= 3:  # a quoted phrase of two adjacent words
            i = int(rng.integers(0, len(words) - 1))
            t = " ".join([*words[:i], f'"{words[i]} {words[i + 1]}"', *words[i + 2 :]])
        elif roll < 0.08:
            t = f"{t} -{rng.choice(['opinion', 'podcast', 'sports', 'review'])}"
        out.append(t)
    return out


# Broad topics: words in 5-35% of a day's items (a day of ~3,300: cells ~1,200, protein ~800,
# disease ~650, patients ~650, cancer ~550, risk ~400, police ~150), alone or combined.
BROAD_QUERIES = (
    "cells",
    "protein",
    "disease",
    "patients",
    "cancer",
    "risk",
    "health",
    "study",
    "police",
    "election",
    "cancer patients",
    "disease risk",
    "cells protein expression",
    "patients with cancer disease",
    "new study of health risk",
    "police said people were killed",
)


def monitor_searches(
    count: int, folder: Path, broad: float = 0.0, seed: int = 13
) -> list[dict[str, Any]]:
    """The monitors' searches (queries from ``query_pool(folder)``); the first ``broad`` share
    watch a broad topic (hundreds of matches a day), cycling through ``BROAD_QUERIES`` so each
    has monitors."""
    rng = np.random.default_rng(seed)
    pool = query_pool(folder)
    # Zipf-Mandelbrot popularity, (rank + 50)^-1: the most popular text is shared by ~60 of
    # 10,000 monitors, about half of the texts used are used once.
    ranks = np.arange(1, len(pool) + 1, dtype=np.float64)
    weights = (ranks + 50.0) ** -1.0
    picks = rng.choice(len(pool), size=count, p=weights / weights.sum())
    domains = synthetic.domain_names()[:500]
    entities = synthetic.entity_ids()[:2000]
    out = []
    n_broad = round(count * broad)
    for i, pick in enumerate(picks):
        if i < n_broad:
            out.append({"query": BROAD_QUERIES[i % len(BROAD_QUERIES)]})
            continue
        search: dict[str, Any] = {"query": pool[pick]}
        if rng.random() < 0.20:
            search["media_types"] = sorted(
                {str(m) for m in rng.choice(["news", "wire", "podcast"], int(rng.integers(1, 3)))}
            )
        roll = rng.random()
        if roll < 0.08:
            search["include_domains"] = sorted(
                {str(d) for d in rng.choice(domains, int(rng.integers(1, 4)))}
            )
        elif roll < 0.12:
            search["exclude_domains"] = sorted(
                {str(d) for d in rng.choice(domains, int(rng.integers(1, 4)))}
            )
        if rng.random() < 0.05:
            search["entity_ids"] = [str(rng.choice(entities))]
        out.append(search)
    return out


def create_monitors(runtime: Runtime, searches: list[dict[str, Any]]) -> None:
    clock = FrozenClock(NOW - timedelta(minutes=1))
    with runtime.sessions.write() as session:
        team_id = create_key(session, workspace="bench", role="member", clock=clock).team_id
        for i, search in enumerate(searches):
            clock.set(NOW - timedelta(minutes=1) + timedelta(microseconds=i))
            create_monitor(
                session,
                team_id=team_id,
                name=f"bench {i}",
                search=search,
                schedule={"minute": i % 60},
                description=None,
                status="active",
                clock=clock,
            )


# -- measuring -------------------------------------------------------------------------------------
def _count(session: Session, query: Any) -> int:
    return int(session.scalar(query) or 0)


def _dated_runs(session: Session) -> int:
    return _count(
        session, select(func.count()).select_from(MonitorRun).where(MonitorRun.kind == "dated")
    )


def _stored(session: Session) -> int:
    return _count(session, select(func.count()).select_from(MonitorResult))


def wait_until_done(runtime: Runtime, poll: float = 1.0) -> None:
    while True:
        time.sleep(poll)
        with runtime.sessions.read() as session:
            if pending_count(session, kinds=[DATED_JOB_KIND]) == 0:
                return


def execute_in_process(runtime: Runtime, args: argparse.Namespace) -> float:
    """Run the queue empty in this process; returns the CPU seconds of this process."""
    cpu = time.process_time()
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        Worker(runtime, lane_threads={"default": 1}).drain()
        profiler.disable()
        profiler.dump_stats(args.profile)
        stats = pstats.Stats(args.profile)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(30)
    else:
        worker = Worker(runtime, lane_threads={"default": args.threads})
        worker.start()
        wait_until_done(runtime)
        worker.stop()
    return time.process_time() - cpu


def start_children(home: Path, url: str, at: datetime, args: argparse.Namespace) -> list[Any]:
    children = []
    for _ in range(args.processes):
        child = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--child",
                "--home",
                str(home),
                "--database-url",
                url,
                "--at",
                at.isoformat(),
                "--threads",
                str(args.threads),
                "--data",
                str(args.data),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        children.append(child)
    for child in children:  # each has loaded its search service (model, vectors) and caught up
        assert child.stdout is not None
        line = child.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"worker process did not start: {line!r}")
    return children


def finish_children(children: list[Any]) -> float:
    cpu = 0.0
    for child in children:
        child.stdin.write("stop\n")
        child.stdin.flush()
    for child in children:
        cpu += float(json.loads(child.stdout.readline())["cpu"])
        child.wait(timeout=120)
    return cpu


def child_main(args: argparse.Namespace) -> None:
    """One worker process: a ``Worker`` over the default lane, like ``herald worker``."""
    settings = Settings(home=Path(args.home), database_url=args.database_url, log_format="text")
    runtime = Runtime(settings, clock=FrozenClock(datetime.fromisoformat(args.at)))
    load_handlers()
    warm_search(runtime)
    worker = Worker(runtime, lane_threads={"default": args.threads})
    print("ready", flush=True)
    sys.stdin.readline()  # "go"
    cpu = time.process_time()
    worker.start()
    sys.stdin.readline()  # "stop": the parent saw the queue empty
    worker.stop()
    print(json.dumps({"cpu": time.process_time() - cpu}), flush=True)
    runtime.close()


def warm_search(runtime: Runtime) -> SearchService:
    """Open the index and the model once, as a running worker has (not part of an hour)."""
    search = monitor_search(runtime)
    assert isinstance(search, SearchService)
    with runtime.sessions.read() as session:
        search.catch_up(session)
    search.warm_up()
    return search


def run_hour(
    runtime: Runtime, clock: FrozenClock, at: datetime, args: argparse.Namespace, label: str
) -> dict[str, Any]:
    clock.set(at)
    with runtime.sessions.read() as session:
        before, stored_before = _dated_runs(session), _stored(session)
    children = start_children(runtime.settings.home, args.url, at, args) if args.processes else []
    load_start = load_average()
    started = time.monotonic()
    cpu_started = time.process_time()
    scheduled = schedule_monitors(runtime)
    schedule_seconds = time.monotonic() - started
    schedule_cpu = time.process_time() - cpu_started
    with runtime.sessions.read() as session:
        jobs = pending_count(session, kinds=[DATED_JOB_KIND])
        dated = _dated_runs(session) - before
    print(label)
    print(
        f"  schedule:    {scheduled:>9,} runs, {dated:,} dated jobs ({jobs:,} queue entries)  "
        f"{schedule_seconds:7.1f} s (cpu {schedule_cpu:.1f} s)"
    )
    search = get_search(runtime)
    hits0, misses0 = search.encoder.hits, search.encoder.misses
    started = time.monotonic()
    if children:
        for child in children:
            child.stdin.write("go\n")
            child.stdin.flush()
        wait_until_done(runtime)
        execute_seconds = time.monotonic() - started
        cpu = finish_children(children)
    else:
        cpu = execute_in_process(runtime, args)
        execute_seconds = time.monotonic() - started
    with runtime.sessions.read() as session:
        stored = _stored(session)
        not_ok = _count(
            session,
            select(func.count())
            .select_from(MonitorRun)
            .where(MonitorRun.kind == "dated", MonitorRun.status != "succeeded"),
        )
        counts = session.execute(
            select(MonitorRun.result_count, MonitorRun.new_result_count)
            .where(MonitorRun.kind == "dated")
            .order_by(MonitorRun.created_at.desc())
            .limit(dated)
        ).all()
    total = schedule_seconds + execute_seconds
    rate = dated / execute_seconds
    mean = float(np.mean([c or 0 for c, _ in counts])) if counts else 0.0
    empty = sum(1 for c, _ in counts if not c)
    print(
        f"  execute:     {dated:>9,} dated jobs      {execute_seconds:7.1f} s  ({rate:,.1f} jobs/s)"
        f", cpu {cpu:.0f} s ({cpu / execute_seconds:.2f} cores busy)"
    )
    if not children:
        print(
            f"  query cache: {search.encoder.hits - hits0:,} hits, "
            f"{search.encoder.misses - misses0:,} misses (embedded)"
        )
    print(
        f"  results:     {mean:.1f} per dated job ({empty:,} jobs found none); store "
        f"{stored:,} rows (+{stored - stored_before:,}); dated jobs not succeeded: {not_ok}"
    )
    print(
        f"  total:       {total:9.1f} s = {total / 60:.1f} min; load average {load_start} -> "
        f"{load_average()}",
        flush=True,
    )
    return {
        "label": label,
        "jobs": dated,
        "total": total,
        "execute": execute_seconds,
        "cpu": cpu + schedule_cpu,
    }


def measure_capture(runtime: Runtime, searches: list[dict[str, Any]], day: date) -> None:
    """How many of a broad query's true matches of ``day`` its monitor's store holds.

    The truth: every item of the day scored exactly (an exhaustive search without a limit); the
    store must hold its best 1000 (the dated job's limit). For comparison, what the retrieval
    candidates alone (100 lexical + 100 dense, the content search) would have kept."""
    search = get_search(runtime)
    queries = {s["query"] for s in searches} & set(BROAD_QUERIES)
    if not queries:
        print("capture: no broad monitor (--broad 0)")
        return
    with runtime.sessions.read() as session:
        truths = {
            q: search.search(session, SavedSearch(q).dated_request(day, limit=1_000_000))
            for q in sorted(queries)
        }
        query = max(truths, key=lambda q: len(truths[q]))
        truth = truths[query]
        candidates_only = search.search(
            session, replace(SavedSearch(query).dated_request(day), exhaustive=False)
        )
        name = f"bench {next(i for i, s in enumerate(searches) if s['query'] == query)}"
        monitor_id = session.scalar(select(Monitor.id).where(Monitor.name == name))
        stored = set(
            session.scalars(
                select(MonitorResult.content_id).where(
                    MonitorResult.monitor_id == monitor_id, MonitorResult.published_date == day
                )
            )
        )
    best = {h.content_id for h in truth[:DATED_JOB_LIMIT]}
    kept = {h.content_id for h in candidates_only}
    print(
        f"capture: {query!r} on {day}: {len(truth):,} true matches (every item of the day "
        f"scored; per broad query: {', '.join(f'{q!r} {len(t):,}' for q, t in truths.items())})"
    )
    print(
        f"  store of its monitor: {len(stored):,} items, {len(stored & best):,} of the best "
        f"{len(best):,} true matches ({len(stored - best)} others); the retrieval candidates "
        f"alone would keep {len(kept & best):,} of them",
        flush=True,
    )


# -- main ------------------------------------------------------------------------------------------
def prepare_home(args: argparse.Namespace, corpus: Corpus) -> tuple[Path, str]:
    """A fresh copy of the base state (built once under ``--work``) for this measurement."""
    tag = f"{args.items}-{args.days}d"
    work = Path(args.work)
    base = work / f"base-{tag}"
    home = Path(tempfile.mkdtemp(prefix="herald-bench-monitors-"))
    if args.database_url:
        import psycopg

        ok = work / f"base-{tag}-pg.ok"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            if not ok.exists():
                conn.execute(f'DROP DATABASE IF EXISTS "{PG_BASE}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{PG_BASE}"')
        if not ok.exists():
            base.mkdir(parents=True, exist_ok=True)
            url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{PG_BASE}"
            build_base(base / "pg", url, args, corpus)
            ok.write_text("ok\n")
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{PG_DB}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{PG_DB}" TEMPLATE "{PG_BASE}"')
        shutil.copytree(base / "pg" / "index", home / "index")
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{PG_DB}"
        upgrade(url)  # a base built by an older version gets the newer migrations
        return home, url
    if not (base / "built.ok").exists():
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        build_base(base, f"sqlite:///{base / 'herald.db'}", args, corpus)
        (base / "built.ok").write_text("ok\n")
    started = time.monotonic()
    shutil.copy(base / "herald.db", home / "herald.db")
    shutil.copytree(base / "index", home / "index")
    url = f"sqlite:///{home / 'herald.db'}"
    upgrade(url)  # a base built by an older version gets the newer migrations
    print(f"  fresh copy of the base state  {time.monotonic() - started:7.1f} s")
    return home, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_argument(parser, *synthetic.DATASETS)
    parser.add_argument("--monitors", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--days", type=int, default=60, help="published dates span")
    parser.add_argument("--threads", type=int, default=2, help="worker threads (per process)")
    parser.add_argument("--processes", type=int, default=0, help="0: workers in this process")
    parser.add_argument(
        "--broad", type=float, default=0.01, help="share of monitors watching a broad topic"
    )
    parser.add_argument("--hours", type=int, default=2, help="hours measured (first + steady)")
    parser.add_argument("--work", default=str(scifact.cache_dir() / "monitors-hourly"))
    parser.add_argument("--database-url", default=None, help="default: SQLite")
    parser.add_argument("--profile", default=None, help="cProfile the first hour (1 thread)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--home", help=argparse.SUPPRESS)
    parser.add_argument("--at", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        child_main(args)
        return

    print(
        f"monitors_hourly: {args.monitors:,} hourly monitors, {args.items:,} items over "
        f"{args.days} days, {'PostgreSQL' if args.database_url else 'SQLite'}, workers: "
        + (
            f"{args.processes} processes x {args.threads} threads"
            if args.processes
            else f"1 process x {args.threads if not args.profile else 1} threads"
        )
    )
    print(
        f"machine: {os.cpu_count()} cores, SHARED with other engineers; load average "
        f"{load_average()} at start",
        flush=True,
    )
    print("setup")
    corpus = Corpus(args.data)
    home, args.url = prepare_home(args, corpus)
    try:
        settings = Settings(home=home, database_url=args.url, log_format="text")
        clock = FrozenClock(NOW)
        runtime = Runtime(settings, clock=clock)
        started = time.monotonic()
        search = warm_search(runtime)
        print(f"  search service open ({search.backend})  {time.monotonic() - started:7.1f} s")
        started = time.monotonic()
        searches = monitor_searches(args.monitors, args.data, args.broad)
        create_monitors(runtime, searches)
        distinct = Counter(s["query"] for s in searches)
        print(
            f"  monitors:    {args.monitors:>9,}  {len(distinct):,} distinct queries (most "
            f"shared: {distinct.most_common(1)[0][1]} monitors; "
            f"{sum(1 for c in distinct.values() if c == 1):,} used once)  "
            f"{time.monotonic() - started:7.1f} s",
            flush=True,
        )
        results = []
        for hour in range(1, args.hours + 1):
            at = NOW + timedelta(hours=hour)
            if hour > 1:
                fresh = add_hour_of_items(runtime, corpus, args, hour, at - timedelta(hours=1))
                print(f"  new items:   {fresh:>9,} (published in the hour before)")
            label = f"hour {hour} ({'first: four dates per monitor' if hour == 1 else 'steady'})"
            results.append(run_hour(runtime, clock, at, args, label))
            if args.profile:
                break
        measure_capture(runtime, searches, (NOW - timedelta(days=1)).date())
        runtime.close()
        for r in results:
            print(
                f"result: {r['label']}: {r['jobs']:,} dated jobs in {r['total'] / 60:.1f} min "
                f"(target < 15 min: {'met' if r['total'] < 900 else 'NOT met'}); "
                f"cpu {r['cpu'] / 60:.1f} min"
            )
        print(f"load average at end {load_average()} (machine shared)")
    finally:
        shutil.rmtree(home, ignore_errors=True)
        if args.database_url:
            import psycopg

            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{PG_DB}" WITH (FORCE)')


if __name__ == "__main__":
    main()
