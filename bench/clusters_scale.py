"""Clustering cost per item as the store grows from 10,000 to 200,000 items (must stay flat).

The stream is synthetic and deterministic (seeded): stories start at random (30% of items begin
a new story) and stay alive for an exponentially distributed time (mean 1.5 days); each item of
a story has the story's direction in embedding space plus noise, and draws its words from the
story's own terms, names, figures and entities (20-40%) and from a Zipf-distributed background
vocabulary of 30,000 words. Names, figures and entities come from large pools (100,000 each), so
the vocabulary keeps growing like a real one. Items arrive 2,000 per simulated day, in order.

Two modes:
- ``core`` (default): the pure online clusterer in memory (what decides the cost per item);
- ``db``: Herald's clustering step on SQLite through ``herald.clusters.service`` (lock, reads,
  cluster/member/statistics writes, compaction), items written to the content tables first.

For each checkpoint the mean cost per item over the preceding window is printed, with the number
of active clusters (the working set) and of clusters in the store, and the load average (the
machine is shared: wall time varies with it, CPU time much less). The last line compares CPU time
per item at every checkpoint with the first: flat means within 2x.

    .venv/bin/python bench/clusters_scale.py [--mode core|db] [--items 200000]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from herald.clusters.features import story_item
from herald.clusters.item import StoryItem
from herald.clusters.online import OnlineClusterer
from herald.core.ids import stable_id

CHECKPOINTS = (10_000, 25_000, 50_000, 100_000, 200_000)
WINDOW = 2_000
PER_DAY = 2_000
DIM = 384
START = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(slots=True)
class _Story:
    index: int
    center: np.ndarray
    terms: list[str]
    names: list[str]
    numbers: list[str]
    entities: list[str]
    ends: datetime


@dataclass(frozen=True, slots=True)
class SyntheticItem:
    key: str
    story: int
    published_at: datetime
    title: str
    body: str
    embedding: np.ndarray
    entities: tuple[tuple[str, str, float], ...]


def _word(n: int, prefix: str = "") -> str:
    """A made-up word for a number ("bqx"): Herald's term rules keep letters only."""
    letters = ""
    n += 26 * 26  # at least three letters
    while n:
        n, rem = divmod(n, 26)
        letters += "abcdefghijklmnopqrstuvwxyz"[rem]
    return prefix + letters


def synthetic_stream(count: int, seed: int = 7) -> Iterator[SyntheticItem]:
    rng = np.random.default_rng(seed)
    background = [_word(n) for n in range(30_000)]
    zipf = 1.0 / np.arange(1, len(background) + 1) ** 1.1
    cumulative = np.cumsum(zipf / zipf.sum())  # sampled by inverse CDF: fast and exact
    alive: list[_Story] = []
    stories = 0
    for n in range(count):
        now = START + timedelta(days=n / PER_DAY)
        alive = [s for s in alive if s.ends > now]
        if not alive or rng.random() < 0.3:
            center = rng.standard_normal(DIM)
            alive.append(
                _Story(
                    stories,
                    center / np.linalg.norm(center),
                    [_word(stories * 30 + k, "zz") for k in range(30)],
                    [_word(int(x), "Q").title() for x in rng.integers(0, 100_000, 8)],
                    [str(int(x)) for x in rng.integers(10, 100_000, 5)],
                    [f"ent_{int(x):06d}" for x in rng.integers(0, 100_000, 5)],
                    now + timedelta(days=float(rng.exponential(1.5))),
                )
            )
            stories += 1
            story = alive[-1]
        else:
            story = alive[int(rng.integers(0, len(alive)))]
        share = rng.uniform(0.2, 0.4)
        own = int(60 * share)
        words = [story.terms[int(i)] for i in rng.integers(0, 30, own)]
        picks = np.searchsorted(cumulative, rng.random(60 - own), side="right")
        words += [background[min(int(i), len(background) - 1)] for i in picks]
        names = [story.names[int(i)] for i in rng.integers(0, 8, 4)]
        numbers = [story.numbers[int(i)] for i in rng.integers(0, 5, 2)]
        vector = story.center + 0.7 * rng.standard_normal(DIM) / math.sqrt(DIM) * 3
        vector = (vector / np.linalg.norm(vector)).astype(np.float32)
        title = " ".join([*names[:2], *words[:6]])
        body = " ".join([*words, *names, *numbers]) + "."
        entities = tuple(
            (e, f"Entity {e}", round(float(rng.uniform(0.2, 1.0)), 3))
            # dict.fromkeys: a story may have drawn one entity twice; an item links it once
            for e in dict.fromkeys(story.entities[: int(rng.integers(1, 5))])
        )
        yield SyntheticItem(f"item{n}", story.index, now, title, body, vector, entities)


def to_story_item(item: SyntheticItem) -> StoryItem:
    return story_item(
        content_id=stable_id("cnt", item.key),
        article_id=stable_id("art", item.key),
        source_key=f"source{int(hashlib.md5(item.key.encode()).hexdigest()[:2], 16) % 50}.example",
        published_at=item.published_at,
        title=item.title,
        body=item.body,
        summary=None,
        embedding=item.embedding,
        entities=item.entities,
    )


def run_core(count: int) -> list[tuple[int, float]]:
    clusterer = OnlineClusterer()
    measured: list[tuple[int, float]] = []
    spent = 0.0
    created = splits = 0
    window: list[tuple[float, float]] = []
    for n, synthetic in enumerate(synthetic_stream(count), start=1):
        item = to_story_item(synthetic)  # feature extraction is not clustering: not timed
        started, cpu = time.perf_counter(), time.process_time()
        assignment = clusterer.assign(item, now=item.published_at)
        elapsed = time.perf_counter() - started
        window.append((elapsed, time.process_time() - cpu))
        spent += elapsed
        created += assignment.created
        splits += assignment.split_from is not None
        if n in CHECKPOINTS:
            measured.append((n, _cpu(window[-WINDOW:])))
            print(
                f"  {n:>7,} items | {_costs(window[-WINDOW:])} | active clusters "
                f"{len(clusterer.active_clusters):>6,} | clusters in all {created:>7,} | "
                f"keys in the statistics {_keys(clusterer):>9,} | {_load()}",
                flush=True,
            )
            window = []
    print(f"  total clustering time {spent:.0f} s for {count:,} items")
    print(f"  {splits:,} times members joined by mistake moved out to a new story")
    return measured


def run_db(count: int) -> list[tuple[int, float]]:
    from sqlalchemy import insert

    from herald.clusters.service import ClusterEngine, cluster_items
    from herald.config import Settings
    from herald.core.clock import FrozenClock
    from herald.db.migrate import upgrade
    from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
    from herald.db.models.entity import Entity
    from herald.enrich.embedding import vector_to_bytes
    from herald.runtime import Runtime

    home = Path(tempfile.mkdtemp(prefix="herald-scale-"))
    url = f"sqlite:///{home / 'herald.db'}"
    upgrade(url)
    clock = FrozenClock(START)
    runtime = Runtime(Settings(home=home, database_url=url, log_format="text"), clock=clock)
    print(f"  writing {count:,} enriched items to {url} ...", flush=True)
    items = list(synthetic_stream(count))
    entity_ids = sorted({e for item in items for e, _, _ in item.entities})
    with runtime.sessions.write() as session:
        for start in range(0, len(entity_ids), 5_000):
            session.execute(
                insert(Entity),
                [
                    {
                        "id": e,
                        "display_name": f"Entity {e}",
                        "entity_kind": "person",
                        "description": "",
                        "aliases": [],
                        "tags": [],
                        "origin": "seed",
                        "created_at": START,
                        "updated_at": START,
                    }
                    for e in entity_ids[start : start + 5_000]
                ],
            )
    for start in range(0, len(items), 5_000):
        chunk = items[start : start + 5_000]
        with runtime.sessions.write() as session:
            session.execute(insert(ContentItem), [_content_row(i) for i in chunk])
            session.execute(
                insert(ContentEmbedding),
                [
                    {
                        "content_id": stable_id("cnt", i.key),
                        "model": "synthetic",
                        "dim": DIM,
                        "vector": vector_to_bytes(i.embedding),
                        "updated_at": START,
                    }
                    for i in chunk
                ],
            )
            session.execute(
                insert(ContentEntity),
                [
                    {
                        "content_id": stable_id("cnt", i.key),
                        "entity_id": e,
                        "mention_count": 1,
                        "salience": s,
                        "confidence": 0.9,
                        "published_at": i.published_at,
                        "media_type": "news",
                    }
                    for i in chunk
                    for e, _, s in i.entities
                ],
            )
    engine = ClusterEngine()
    measured: list[tuple[int, float]] = []
    window: list[tuple[float, float]] = []
    batch = 64
    done = 0
    for start in range(0, len(items), batch):
        ids = [stable_id("cnt", i.key) for i in items[start : start + batch]]
        clock.set(items[start].published_at)
        started, cpu = time.perf_counter(), time.process_time()
        with runtime.sessions.write() as session:
            cluster_items(session, engine, ids, clock=clock)
        elapsed, used = time.perf_counter() - started, time.process_time() - cpu
        window.extend([(elapsed / len(ids), used / len(ids))] * len(ids))
        before, done = done, done + len(ids)
        for checkpoint in CHECKPOINTS:
            if before < checkpoint <= done:
                clusterer = engine._clusterer
                active = len(clusterer.active_clusters) if clusterer else 0
                measured.append((checkpoint, _cpu(window[-WINDOW:])))
                print(
                    f"  {checkpoint:>7,} items | {_costs(window[-WINDOW:])}, batches of {batch} "
                    f"| active clusters {active:>6,} | {_load()}",
                    flush=True,
                )
                window = []
    runtime.close()
    print(f"  database left at {home}")
    return measured


def _keys(clusterer: OnlineClusterer) -> int:
    """Distinct words, names, figures and entities seen: the one part that grows with the store
    (IDF needs them); each lookup stays a hash-table probe."""
    return sum(len(stats.counts) for stats in clusterer.statistics.values())


def _cpu(window: list[tuple[float, float]]) -> float:
    return 1000 * sum(c for _, c in window) / len(window)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} ({os.cpu_count()} cores)"


def _verdict(measured: list[tuple[int, float]]) -> None:
    """Flat means: CPU per item at every checkpoint within 2x of the first (10,000 items)."""
    if len(measured) < 2:
        return
    base = measured[0][1]
    worst = max(cpu for _, cpu in measured)
    ratio = worst / base if base else float("inf")
    print(
        f"  CPU per item: {base:.2f} ms at {measured[0][0]:,} items, at most {worst:.2f} ms "
        f"up to {measured[-1][0]:,} items: {ratio:.2f}x "
        f"({'flat within 2x' if ratio <= 2.0 else 'NOT within 2x'})"
    )


def _costs(window: list[tuple[float, float]]) -> str:
    wall = 1000 * sum(w for w, _ in window) / len(window)
    cpu = 1000 * sum(c for _, c in window) / len(window)
    return f"{wall:6.2f} ms/item wall, {cpu:6.2f} ms CPU (last {len(window):,})"


def _content_row(item: SyntheticItem) -> dict[str, object]:
    content_id = stable_id("cnt", item.key)
    return {
        "id": content_id,
        "canonical_key": item.key,
        "media_type": "news",
        "url": f"https://example.com/{item.key}",
        "source_name": "Synthetic",
        "source_domain": "example.com",
        "title": item.title,
        "authors": [],
        "language": "en",
        "published_at": item.published_at,
        "body": item.body,
        "summary": None,
        "summary_provided": False,
        "summaries": [],
        "key_points": [],
        "segments": [],
        "word_count": len(item.body.split()),
        "content_hash": hashlib.sha256(item.body.encode()).hexdigest(),
        "article_id": stable_id("art", item.key),
        "enriched_at": item.published_at,
        "change_seq": 0,
        "version": 1,
        "created_at": item.published_at,
        "updated_at": item.published_at,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=["core", "db"], default="core")
    parser.add_argument("--items", type=int, default=CHECKPOINTS[-1])
    args = parser.parse_args(argv)
    print(
        f"Clustering cost per item, {args.mode} mode, synthetic stream of {args.items:,} items "
        f"({PER_DAY:,}/day). Machine shared by up to 8 engineers: timings are noisy."
    )
    print(f"  start: {_load()}")
    measured = run_core(args.items) if args.mode == "core" else run_db(args.items)
    _verdict(measured)


if __name__ == "__main__":
    sys.exit(main())
