"""What holding each change number until commit costs on PostgreSQL.

    .venv/bin/python bench/change_numbers.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/DB
        [--writes 2000] [--holders 0,50] [--rounds 3]

Every write that changes what search sees draws a change number; on PostgreSQL it also takes a
shared advisory lock on it, held until the transaction ends, so that the search indexes find the
lowest number still uncommitted (``herald.search.feed.in_flight_floor``) and never miss a late
commit. This times, on a fresh migrated database (DB is created and dropped by the script, which
needs to reach the server's ``postgres`` database):

- a write transaction that draws one number and stamps one item with it, ``--writes`` times,
  drawing the number as before (``nextval`` alone) and as now (``nextval`` and the lock),
  alternating in ``--rounds`` rounds;
- the in-flight query a search's catch-up runs when the database is ahead of its index, with
  each count of ``--holders`` other transactions holding an uncommitted number meanwhile.

Printed: milliseconds per write transaction (median of the rounds) and per in-flight query (p50
and p99 of 500), and the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUERIES = 500


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database to create")
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--holders", default="0,50")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import psycopg
    from sqlalchemy.engine import make_url

    from herald.db.migrate import upgrade

    url = make_url(args.database_url)
    admin = url.set(drivername="postgresql", database="postgres").render_as_string(False)
    name = url.database
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        upgrade(args.database_url)
        run(args, args.database_url, url.set(drivername="postgresql").render_as_string(False))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(args: argparse.Namespace, url: str, dsn: str) -> None:
    import psycopg
    from sqlalchemy.orm import Session

    from herald.content.changes import _DRAW, PG_SEQUENCE
    from herald.db.engine import make_engine
    from herald.db.models.content import ContentItem
    from herald.search.feed import _IN_FLIGHT, IN_FLIGHT_LOCK_BASE

    before = f"SELECT nextval('{PG_SEQUENCE}')"
    after = str(_DRAW)
    now = datetime.now(UTC)
    engine = make_engine(url)
    with Session(engine) as session:
        session.add(
            ContentItem(
                id="cnt_bench",
                canonical_key="https://example.com/1",
                url="https://example.com/1",
                media_type="news",
                source_name="Bench",
                source_domain="example.com",
                title="Bench",
                published_at=now,
                content_hash="h",
                created_at=now,
                updated_at=now,
            )
        )
        session.commit()
    engine.dispose()
    with psycopg.connect(dsn) as conn:
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.rounds):
            for label, draw in (("before", before), ("after", after)):
                started = time.perf_counter()
                for _ in range(args.writes):
                    seq = conn.execute(draw).fetchone()[0]  # type: ignore[index]
                    conn.execute(
                        "UPDATE content_items SET change_seq = %s WHERE id = 'cnt_bench'", (seq,)
                    )
                    conn.commit()
                times[label].append((time.perf_counter() - started) / args.writes * 1000)
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    for label, values in times.items():
        rounds = ", ".join(f"{v:.3f}" for v in values)
        print(
            f"write transaction, number drawn {label}: "
            f"{statistics.median(values):.3f} ms (rounds: {rounds})"
        )
    high = IN_FLIGHT_LOCK_BASE >> 32
    for holders in (int(h) for h in args.holders.split(",")):
        held = [psycopg.connect(dsn) for _ in range(holders)]
        try:
            for conn in held:
                conn.execute(after)  # a number drawn and left uncommitted
            with psycopg.connect(dsn, autocommit=True) as reader:
                durations = []
                for _ in range(QUERIES):
                    started = time.perf_counter()
                    reader.execute(str(_IN_FLIGHT).replace(":high", "%(high)s"), {"high": high})
                    durations.append((time.perf_counter() - started) * 1000)
            durations.sort()
            p99 = durations[int(len(durations) * 0.99) - 1]
            print(
                f"in-flight query, {holders} transactions holding a number: "
                f"p50 {statistics.median(durations):.3f} ms, p99 {p99:.3f} ms"
            )
        finally:
            for conn in held:
                conn.close()
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
