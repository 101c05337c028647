"""What a recount of the clustering statistics costs as they grow: time, CPU and memory.

``herald clusters recount`` (and the ``clusters.recount`` job) compares every count of
``cluster_term_stats`` with what the records of the clustered articles give. This bench builds a
SQLite database (or fills an empty PostgreSQL one) with ``--articles`` clustered articles, each
with a record of its keys drawn from Zipf-distributed vocabularies per bag (seeded), and the
counts those records give, then puts some counts wrong (``--drift`` of them one too high, a
tenth as many lost). Each checkout named by ``--src`` (a ``src`` folder: this one, or an older
Herald's, to compare side by side in one run) recounts a fresh copy in a process of its own,
which prints its wall time, CPU time and peak memory (maximum resident set); the database is
checked exact afterwards.

    .venv/bin/python bench/clusters_recount.py --articles 100000 --src src --src /tmp/old/src
    .venv/bin/python bench/clusters_recount.py --database-url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

BAGS = {
    "terms": (50_000, 30),
    "names": (100_000, 8),
    "numbers": (20_000, 4),
    "entities": (50_000, 5),
}
T = datetime(2026, 11, 1, tzinfo=UTC)
CHUNK = 5_000


def _zipf_pick(rnd: random.Random, size: int, k: int) -> list[str]:
    # Zipf-like: the rank of a word is size ** u for u uniform, so low ranks are common.
    return sorted({str(int(size ** rnd.random())) for _ in range(k)})


def fill(url: str, articles: int, drift: float, seed: int) -> dict[str, int]:
    from sqlalchemy import create_engine, insert, text

    from herald.db.base import Base
    from herald.db.migrate import upgrade

    if not url.startswith("sqlite"):  # start from an empty schema
        with create_engine(url).begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    upgrade(url)
    tables = Base.metadata.tables
    rnd = random.Random(seed)
    counts: Counter[tuple[str, str]] = Counter()
    engine = create_engine(url)
    with engine.begin() as conn:
        for start in range(0, articles, CHUNK):
            items, clusters, members, records = [], [], [], []
            for n in range(start, min(start + CHUNK, articles)):
                cid, aid = f"cnt_{n:09d}", f"art_{n:09d}"
                keys = {
                    bag: [f"{bag[0]}{w}" for w in _zipf_pick(rnd, size, k)]
                    for bag, (size, k) in BAGS.items()
                }
                counts.update((bag, key) for bag, found in keys.items() for key in found)
                items.append({
                    "id": cid, "canonical_key": cid, "media_type": "news", "source_name": "s",
                    "source_domain": "s.example", "title": "t", "published_at": T,
                    "content_hash": cid, "created_at": T, "updated_at": T,
                })  # fmt: skip
                if n % 5 == 0:
                    clusters.append({
                        "id": f"sc_{n:09d}", "seq": n, "status": "active", "title": "t",
                        "abstract": "", "member_count": 5, "unique_source_count": 1,
                        "source_keys": [], "key_entities": [], "key_ideas": [],
                        "first_published_at": T, "latest_published_at": T,
                        "latest_member_added_at": T, "profile_version": 1, "created_at": T,
                        "updated_at": T, "changed_seq": n,
                    })  # fmt: skip
                members.append({
                    "id": f"scm_{n:09d}", "cluster_id": f"sc_{n - n % 5:09d}", "content_id": cid,
                    "article_id": aid, "source_key": "s", "published_at": T, "assigned_at": T,
                    "link_confidence": 1.0, "similarity": 1.0,
                })  # fmt: skip
                records.append({"article_id": aid, "keys": keys})
            conn.execute(insert(tables["content_items"]), items)
            conn.execute(insert(tables["story_clusters"]), clusters)
            conn.execute(insert(tables["story_cluster_members"]), members)
            conn.execute(insert(tables["cluster_article_keys"]), records)
        pairs = sorted(counts)
        wrong = set(rnd.sample(range(len(pairs)), int(len(pairs) * drift)))
        lost = set(rnd.sample(range(len(pairs)), int(len(pairs) * drift / 10)))
        rows = [
            {"bag": bag, "key": key, "documents": counts[bag, key] + (i in wrong), "changed_seq": 1}
            for i, (bag, key) in enumerate(pairs)
            if i not in lost
        ]
        for start in range(0, len(rows), 50_000):
            conn.execute(insert(tables["cluster_term_stats"]), rows[start : start + 50_000])
        conn.execute(
            insert(tables["cluster_state"]),
            [{
                "id": 1, "sequence": 1, "epoch": 1, "documents": dict.fromkeys(BAGS, articles),
                "next_seq": articles, "rebuilding": False, "updated_at": T,
            }],
        )  # fmt: skip
    engine.dispose()
    return {"articles": articles, "counts": len(rows), "wrong": len(wrong | lost)}


def run_recount(url: str) -> None:
    """The child: recount, then print what it cost (one JSON line)."""
    from herald.clusters.recount import recount
    from herald.core.clock import SystemClock
    from herald.db.engine import make_engine
    from herald.db.session import SessionFactory

    sessions = SessionFactory(make_engine(url))
    wall, cpu = time.perf_counter(), time.process_time()
    report = recount(sessions, clock=SystemClock())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_mib": peak, "corrected": report.corrected}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--articles", type=int, default=100_000)
    parser.add_argument("--drift", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--src", action="append", help="a Herald src folder (repeatable)")
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: SQLite)")
    parser.add_argument("--recount", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.recount:
        run_recount(args.recount)
        return 0
    srcs = args.src or ["src"]
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        filled = args.database_url or f"sqlite:///{base}"
        for n, src in enumerate(srcs):
            if args.database_url or n == 0:  # PostgreSQL is filled again for each run
                t = time.perf_counter()
                shape = fill(filled, args.articles, args.drift, args.seed)
                print(f"filled {shape} in {time.perf_counter() - t:.0f} s")
            url = filled
            if not args.database_url:  # each run recounts a fresh copy of the SQLite file
                shutil.copy(base, Path(tmp) / f"run{n}.db")
                url = f"sqlite:///{Path(tmp) / f'run{n}.db'}"
            env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}bench"}
            out = subprocess.run(
                [sys.executable, __file__, "--recount", url],
                env=env, capture_output=True, text=True, check=True,
            ).stdout.strip().splitlines()[-1]  # fmt: skip
            got = json.loads(out)
            print(
                f"{src}: recount {got['wall']:.1f} s wall, {got['cpu']:.1f} s CPU, "
                f"peak memory {got['peak_mib']:.0f} MiB, {got['corrected']} counts corrected"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
