"""What merging discovered entities into the knowledge base costs at a seed upgrade.

    .venv/bin/python bench/entities_merge.py [--discovered 50000] [--duplicates 1000]
                                             [--items 100000] [--database-url URL]

A database as a year of linking leaves it: the bundled seed, ``--discovered`` entities linking
discovered (generated names, which the seed does not know) of which ``--duplicates`` carry the
name of a seed person, company or organisation (what a seed upgrade that adds them finds),
and ``--items`` content items with five entity links each, one in five of them to a duplicate.
Printed: the time of the merge sweep (every discovered entity looked up, the duplicates merged,
their content links moved and the items marked changed), then of reading the seed once more
with nothing to write (what every database does once after the upgrade that brings merging).
SQLite by default (a temporary file); ``--database-url`` for PostgreSQL (a database that
exists and may be emptied).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, func, insert, select, text

from herald.config import Settings
from herald.db.migrate import upgrade
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import Entity, EntityRedirect
from herald.entities import repository
from herald.entities.jsonl import entity_id_for
from herald.entities.kb import read_seed
from herald.entities.model import EntityDraft, EntityRecord
from herald.entities.names import alias_key
from herald.entities.service import merge_discovered, seed_knowledge_base
from herald.runtime import Runtime

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def _name(rng: random.Random, words: int) -> str:
    return " ".join(
        "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        for _ in range(words)
    )


def discovered_records(rng: random.Random, count: int, duplicates: int) -> list[EntityRecord]:
    """``count`` discovered entities, the first ``duplicates`` named as a seed entity is."""
    seen: set[str] = set()
    unique: list[EntityRecord] = []
    by_key: dict[str, int] = {}
    for record in read_seed():
        if record.entity_kind in ("person", "company", "organization"):
            key = alias_key(record.display_name)
            by_key[key] = by_key.get(key, 0) + 1
            unique.append(record)
    named = [r for r in unique if by_key[alias_key(r.display_name)] == 1]
    rng.shuffle(named)
    out: list[EntityRecord] = []
    for record in named[:duplicates]:
        kind = "organization" if record.entity_kind == "company" else record.entity_kind
        out.append(_discovered(record.display_name, kind))
        seen.add(alias_key(record.display_name))
    while len(out) < count:
        kind = rng.choice(["person", "person", "organization", "place"])
        name = _name(rng, 2 if kind == "person" else rng.randint(1, 3))
        if alias_key(name) not in seen:
            seen.add(alias_key(name))
            out.append(_discovered(name, kind))
    return out


def _discovered(name: str, kind: str) -> EntityRecord:
    entity_id = entity_id_for(kind, name, f"discovered:{kind}:{alias_key(name)}")  # type: ignore[arg-type]
    return EntityDraft(entity_id, name, kind).to_record()  # type: ignore[arg-type]


def write_items(url: str, records: list[EntityRecord], items: int, duplicates: int) -> int:
    engine = create_engine(url)
    rng = random.Random(7)
    links = 0
    with engine.begin() as conn:
        for start in range(0, items, 5000):
            rows, link_rows = [], []
            for number in range(start, min(items, start + 5000)):
                content_id = f"cnt_bench{number:012d}"
                rows.append(
                    {
                        "id": content_id,
                        "canonical_key": content_id,
                        "media_type": "news",
                        "source_name": "Bench",
                        "source_domain": "bench.example",
                        "title": f"Item {number}",
                        "published_at": NOW,
                        "content_hash": content_id,
                        "change_seq": number + 1,
                        "created_at": NOW,
                        "updated_at": NOW,
                    }
                )
                picked = {rng.randrange(duplicates, len(records)) for _ in range(4)}
                if number % 5 == 0 and duplicates:
                    picked.add(rng.randrange(duplicates))
                for index in picked:
                    link_rows.append(
                        {
                            "content_id": content_id,
                            "entity_id": records[index].id,
                            "mention_count": 1,
                            "salience": 0.5,
                            "confidence": 0.9,
                            "published_at": NOW,
                            "media_type": "news",
                        }
                    )
            conn.execute(insert(ContentItem), rows)
            conn.execute(insert(ContentEntity), link_rows)
            links += len(link_rows)
        if url.startswith("postgresql"):
            conn.execute(text(f"SELECT setval('content_change_seq', {items + 1})"))
            conn.execute(text("ANALYZE"))
    engine.dispose()
    return links


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--discovered", type=int, default=50_000)
    parser.add_argument("--duplicates", type=int, default=1_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="herald-bench-merge-"))
    url = args.database_url or f"sqlite:///{home / 'herald.db'}"
    if args.database_url:
        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
        engine.dispose()
    upgrade(url)
    runtime = Runtime(Settings(home=home, database_url=url, log_format="text"))
    started = time.monotonic()
    seed_knowledge_base(runtime)
    print(f"seed load (fresh database):       {time.monotonic() - started:7.1f} s")
    records = discovered_records(random.Random(3), args.discovered, args.duplicates)
    started = time.monotonic()
    with runtime.sessions.write() as session:
        for start in range(0, len(records), 5000):
            repository.upsert_entities(
                session, records[start : start + 5000], now=NOW, replace=False
            )
    links = write_items(url, records, args.items, args.duplicates)
    print(
        f"discovered entities:  {len(records):>9,} ({args.duplicates:,} named as seed ones), "
        f"items: {args.items:,}, links: {links:,}, written in {time.monotonic() - started:.1f} s"
    )
    started = time.monotonic()
    with runtime.sessions.write() as session:
        merged = merge_discovered(session, now=NOW)
    sweep = time.monotonic() - started
    with runtime.sessions.read() as session:
        redirects = session.execute(select(func.count()).select_from(EntityRedirect)).scalar_one()
        left = session.execute(
            select(func.count()).select_from(Entity).where(Entity.origin == "discovered")
        ).scalar_one()
    print(
        f"merge sweep:                      {sweep:7.1f} s  ({merged:,} merged, {redirects:,} "
        f"redirects, {left:,} discovered left)"
    )
    started = time.monotonic()
    seed_knowledge_base(runtime, force=True)
    print(
        f"seed read again (nothing to write, sweep included): {time.monotonic() - started:7.1f} s"
    )
    runtime.close()


if __name__ == "__main__":
    main()
