"""Linking speed and memory with a 1,000,000-entity knowledge base (generated names).

    .venv/bin/python bench/entities_kb_scale.py [--entities 1000000] [--data DATA/ecbplus]
                                                [--passes 3]

The bundled seed (41,278 entities) plus generated entities up to ``--entities``: people (a given
name and a generated surname, some with a middle initial, an alias of the surname-less form),
companies ("Velorant Holdings", ticker tags), organisations and places (with population, so the
prior varies), each with a short description. The names are made of random syllables, so they
rarely occur in real text: what this measures is the cost of a big index (the dictionary
matcher's look-ups, candidate generation, memory), on the real ECB+ articles, whose recogniser
output is read from ``entities_ecbplus_eval``'s cache (run that first) or computed.

Printed: build time and resident memory of the knowledge base, then CPU time per article for
linking alone (``time.process_time``) with the seed and with the big knowledge base, the
dictionary matcher on and off: the median and the best of ``--passes`` passes over the articles
(a shared machine's neighbours move a single pass by up to 50%; the best pass is the cost
without them, the median what a busy host sees).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.clusters_data import load_ecbplus
from bench.entities_ecbplus_eval import recognise
from bench.public_data import add_dataset_argument
from herald.entities.kb import KnowledgeBase, bundled_given_names, read_seed
from herald.entities.linking import EntityLinker, LinkingConfig, document_text
from herald.entities.model import EntityKind, EntityRecord, Tag

_ONSETS = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "cr",
    "dr",
    "fr",
    "gr",
    "kr",
    "pr",
    "tr",
    "st",
    "sk",
    "sl",
]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ei", "ou", "ia"]
_CODAS = ["n", "r", "s", "l", "m", "nd", "rt", "st", "x", "k"]


def syllables(rng: random.Random, count: int) -> str:
    parts = []
    for _ in range(count):
        parts.append(rng.choice(_ONSETS) + rng.choice(_VOWELS))
    return ("".join(parts) + rng.choice(_CODAS)).capitalize()


def generated(total: int, seed: int = 7) -> Iterator[EntityRecord]:
    rng = random.Random(seed)
    given = sorted(bundled_given_names())
    for n in range(total):
        roll = n % 10
        kind: EntityKind
        tags: tuple[Tag, ...] = ()
        aliases: tuple[str, ...] = ()
        if roll < 5:
            kind = "person"
            surname = syllables(rng, rng.choice((2, 3)))
            first = rng.choice(given).capitalize()
            name = f"{first} {surname}"
            if roll == 0:
                name = f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {surname}"
            description = f"generated person {n}, politician and business leader"
        elif roll < 7:
            kind = "company"
            base = syllables(rng, rng.choice((2, 3)))
            name = f"{base} {rng.choice(('Holdings', 'Group', 'Systems', 'Energy', 'Media'))}"
            aliases = (base,)
            tags = (Tag("ticker", base[:4].upper()),)
            description = f"generated company {n}, listed manufacturer"
        elif roll < 8:
            kind = "organization"
            name = f"{syllables(rng, 2)} {rng.choice(('Council', 'Institute', 'Foundation'))}"
            description = f"generated organisation {n}"
        else:
            kind = "place"
            name = syllables(rng, rng.choice((2, 3, 4)))
            population = int(10 ** rng.uniform(3, 6.5))
            tags = (
                Tag("place_type", "city"),
                Tag("country", rng.choice(("US", "DE", "FR", "BR", "IN", "NG"))),
                Tag("population", str(population)),
            )
            description = f"generated town {n}"
        yield EntityRecord(
            id=f"ent_gen{n}",
            display_name=name,
            entity_kind=kind,
            description=description,
            aliases=aliases,
            tags=tags,
            origin="import",
        )


def rss_mb() -> float:
    """Current resident memory (Linux /proc), in MB."""
    with open(f"/proc/{os.getpid()}/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 1e6


def link_cpu_ms(
    kb: KnowledgeBase,
    docs: list[tuple[str, str]],
    mentions: list,  # type: ignore[type-arg]
    dictionary: bool,
    passes: int,
) -> str:
    """CPU ms per article over ``passes`` passes: "median (best)"."""
    linker = EntityLinker(kb, LinkingConfig(dictionary=dictionary))
    times = []
    for _ in range(passes):
        started = time.process_time()
        for (title, body), found in zip(docs, mentions, strict=True):
            linker.link(title, body, found)
        times.append(1000 * (time.process_time() - started) / len(docs))
    return f"{statistics.median(times):.2f} ms (best {min(times):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--entities", type=int, default=1_000_000)
    add_dataset_argument(parser, "ecbplus")
    parser.add_argument("--passes", type=int, default=3, help="passes over the articles")
    args = parser.parse_args()
    bench_docs = load_ecbplus(args.data / "docs.jsonl")
    docs = [(d.title, d.body) for d in bench_docs]
    mentions = recognise([document_text(t, b) for t, b in docs])

    seed_kb = KnowledgeBase(read_seed())
    for dictionary in (False, True):
        ms = link_cpu_ms(seed_kb, docs, mentions, dictionary, args.passes)
        print(
            f"seed KB ({len(seed_kb):,}), dictionary {'on ' if dictionary else 'off'}: "
            f"{ms} CPU per article"
        )
    del seed_kb
    gc.collect()

    before = rss_mb()
    started = time.perf_counter()
    kb = KnowledgeBase(read_seed())
    for record in generated(args.entities - len(kb)):
        kb.add(record)
    built = time.perf_counter() - started
    gc.collect()
    print(
        f"big KB: {len(kb):,} entities built in {built:.0f} s, "
        f"+{rss_mb() - before:,.0f} MB resident"
    )
    mean_chars = sum(len(b) for _, b in docs) / len(docs)
    for dictionary in (False, True):
        ms = link_cpu_ms(kb, docs, mentions, dictionary, args.passes)
        print(
            f"big KB, dictionary {'on ' if dictionary else 'off'}: {ms} CPU per article "
            f"({len(docs)} ECB+ articles, mean {mean_chars:,.0f} chars)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
