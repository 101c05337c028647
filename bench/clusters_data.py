"""Datasets for the story-clustering benchmarks, run through Herald's own enrichment pipeline.

Phase-1 harness (no database): each document goes through ``herald.enrich.pipeline`` exactly as
Herald enriches an ingested item (language, summaries, spaCy NER, entity linking against the
bundled knowledge base, all-MiniLM-L6-v2 embedding of title and lead), and syndicated copies get
one ``article_id`` through ``herald.ingest.syndication`` in arrival order. Enrichment results are
cached (``HERALD_BENCH_CACHE``, default ``bench/out/``, gitignored) because the models are slow on a
shared 2-core machine; the cache key includes the dataset file's size and modification time.

Datasets (files of the data folder that docs/benchmarks.md, "Datasets", describes; the scripts
take it as ``--data DIR`` and pass the paths in):
- ECB+: 982 articles, gold story = ``subtopic`` (86). The title is the first line of the text, the
  body the rest. No publication dates exist, so arrival order is a seeded shuffle and items are
  published one minute apart (the whole stream lies within the clustering horizon): time carries
  no information and only content can separate a topic's two events. Nothing gold is used.
- WCEP September 2015: 428 dated event summaries (one "article" each); gold story =
  ``belongsToStory.id`` on 242 of them (90 stories). All 428 are streamed in date order (file
  order within a day, one minute apart from 12:00Z); scores count the 242 labelled ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from herald.clusters.features import story_item
from herald.clusters.item import StoryItem
from herald.core.ids import stable_id
from herald.ingest.syndication import (
    SyndicationIndex,
    TextFingerprint,
    fingerprint,
)

# The files read, relative to the data folder.
ECBPLUS = Path("ecbplus") / "docs.jsonl"
WCEP = Path("wcep-wikitimes-2015-09") / "wikitimes_CEP_2015-09.json"
CACHE = Path(os.environ.get("HERALD_BENCH_CACHE", Path(__file__).resolve().parent / "out"))
STREAM_START = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class BenchDoc:
    doc_id: str
    gold: str | None  # gold story; None = unlabelled (streamed, not scored)
    split: str  # ECB+: train / dev / test; WCEP: all
    topic: str
    title: str
    body: str
    source_domain: str
    published_at: datetime | None  # None: set by the stream order


@dataclass(frozen=True, slots=True)
class Enriched:
    """What Herald's enrichment gives the clusterer for one document."""

    summary: str
    embedding: np.ndarray[Any, np.dtype[np.float32]]
    entities: tuple[tuple[str, str, float], ...]  # (entity id, display name, salience)


def load_ecbplus(path: Path) -> list[BenchDoc]:
    """ECB+ from ``docs.jsonl`` (``path``)."""
    docs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        lines = [part.strip() for part in row["text"].split("\n") if part.strip()]
        # The headline is the first line that is not a dateline ("June 6, 2013 3: 05 PM EDT").
        first = next((n for n, line in enumerate(lines) if not _is_dateline(line)), 0)
        title = lines[first]
        body = "\n".join(lines[:first] + lines[first + 1 :]) or title
        docs.append(
            BenchDoc(
                doc_id=row["doc_id"],
                gold=row["subtopic"],
                split=row["split"],
                topic=str(row["topic"]),
                title=title,
                body=body,
                source_domain=row["source_domain"] or "ecb.invalid",
                published_at=None,
            )
        )
    return docs


_DATE_WORDS = frozenset(
    (
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
        "dec", "january", "february", "march", "april", "june", "july", "august", "september",
        "october", "november", "december", "mon", "tue", "tues", "wed", "thu", "thur", "thurs",
        "fri", "sat", "sun", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
        "sunday", "am", "pm", "a.m", "p.m", "gmt", "bst", "est", "edt", "cet", "utc", "et",
        "pt", "pst", "pdt", "updated", "last", "published", "posted", "at", "on", "by", "st",
        "nd", "rd", "th",
    )
)  # fmt: skip


def _is_dateline(line: str) -> bool:
    """A line made of dates and times only (ECB+ keeps the publisher's dateline as a line)."""
    words = [w.strip(".,:;()|/-").lower() for w in line.split()]
    words = [w for w in words if w and not any(ch.isdigit() for ch in w)]
    return len(line) < 80 and sum(w not in _DATE_WORDS for w in words) <= 1


def load_wcep(path: Path) -> list[BenchDoc]:
    """WCEP September 2015 from ``wikitimes_CEP_2015-09.json`` (``path``)."""
    events = json.loads(path.read_text(encoding="utf-8"))
    docs = []
    per_day: dict[str, int] = {}
    for event in events:
        day = event["date"]
        index = per_day.get(day, 0)
        per_day[day] = index + 1
        published = datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC) + timedelta(
            minutes=index
        )
        text = " ".join(event["description"].split())
        story = event.get("belongsToStory")
        sources = event.get("source") or []
        domain = _domain(sources[0]["url"]) if sources else "wikipedia.invalid"
        docs.append(
            BenchDoc(
                doc_id=event["id"],
                gold=story["id"] if story else None,
                split="all",
                topic=event["category"]["name"],
                title=_first_sentence(text),
                body=text,
                source_domain=domain,
                published_at=published,
            )
        )
    docs.sort(key=lambda d: d.published_at or STREAM_START)
    return docs


def _domain(url: str) -> str:
    host = url.split("://", 1)[-1].split("/", 1)[0].lower()
    return host.removeprefix("www.")


def _first_sentence(text: str) -> str:
    from herald.enrich.text import split_sentences

    sentences = split_sentences(text)
    return sentences[0].text if sentences else text


# What enrichment's output depends on: its code, the linker's and their data files.
_ENRICHMENT_CODE = ("enrich", "entities", "data/linker", "data/models")


def code_digest() -> str:
    """A digest of the code and data files enrichment's output depends on, so that a cached
    enrichment is never reused after they change (committed or not)."""
    root = Path(__file__).resolve().parents[1] / "src" / "herald"
    digest = hashlib.sha256()
    for folder in _ENRICHMENT_CODE:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".json", ".toml"):
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def enrich(name: str, docs: Sequence[BenchDoc], source: Path) -> list[Enriched]:
    """Herald's enrichment of every document (cached; computed in file order)."""
    stat = source.stat()
    from herald.config import Settings

    # Vectors differ by the embedding precision (HERALD_EMBEDDING_PRECISION), entities by the
    # recogniser (HERALD_NER_RECOGNIZER): one cache each.
    settings = Settings(entity_seed="none", database_url=None)
    precision, recognizer = settings.embedding_precision, settings.ner_recognizer
    tag = f"{name}:{stat.st_size}:{stat.st_mtime_ns}:v3:{precision}:{recognizer}:{code_digest()}"
    key = hashlib.sha256(tag.encode()).hexdigest()[:16]
    path = CACHE / f"clusters-{name}-{key}.pkl"
    if path.exists():
        with path.open("rb") as handle:
            cached: list[Enriched] = pickle.load(handle)  # our own cache file
        return cached
    from herald.enrich.embedder import build_embedder
    from herald.enrich.language import LanguageDetector
    from herald.enrich.pipeline import EnrichmentPipeline, ItemText
    from herald.entities.kb import KnowledgeBase
    from herald.entities.linking import EntityLinker
    from recognizers import recognizer_for

    started = time.monotonic()
    print(f"enriching {len(docs)} {name} documents with Herald's pipeline ...", file=sys.stderr)
    pipeline = EnrichmentPipeline(
        language=LanguageDetector(),
        recognizer=recognizer_for(recognizer),
        linker=EntityLinker(KnowledgeBase.from_seed()),
        embedder=build_embedder(None, precision=precision),
    )
    out: list[Enriched] = []
    batch = 64
    for start in range(0, len(docs), batch):
        chunk = docs[start : start + batch]
        result = pipeline.run(
            [ItemText(d.doc_id, "news", d.title, d.body, language="en") for d in chunk]
        )
        for item in result.items:
            out.append(
                Enriched(
                    summary=item.summary,
                    embedding=np.asarray(item.embedding, dtype=np.float32),
                    entities=tuple(
                        (e.entity_id, e.display_name, float(e.salience)) for e in item.entities
                    ),
                )
            )
    CACHE.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(out, handle)
    print(f"  done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return out


def arrival_order(docs: Sequence[BenchDoc], seed: int | None) -> list[int]:
    """Indexes in arrival order: dated documents by date; undated ones shuffled with ``seed``."""
    order = list(range(len(docs)))
    if seed is not None and all(d.published_at is None for d in docs):
        random.Random(seed).shuffle(order)
    else:
        order.sort(key=lambda i: (docs[i].published_at or STREAM_START, i))
    return order


_PREPARED: dict[tuple[str, str], tuple[StoryItem, TextFingerprint | None]] = {}


def _prepared(doc: BenchDoc, enr: Enriched) -> tuple[StoryItem, TextFingerprint | None]:
    """The arrival-independent part of a document's item (memoised: streams are replayed often)."""
    key = (doc.doc_id, doc.title)
    if key not in _PREPARED:
        item = story_item(
            content_id=stable_id("cnt", doc.doc_id),
            article_id=stable_id("art", doc.doc_id),
            source_key=doc.source_domain,
            published_at=doc.published_at or STREAM_START,
            title=doc.title,
            body=doc.body,
            summary=enr.summary,
            embedding=enr.embedding,
            entities=enr.entities,
        )
        _PREPARED[key] = (item, fingerprint(f"{doc.title}\n{doc.body}"))
    return _PREPARED[key]


def story_stream(
    docs: Sequence[BenchDoc], enriched: Sequence[Enriched], order: Sequence[int]
) -> list[tuple[int, StoryItem, datetime]]:
    """The stream the clusterer sees: (doc index, item, arrival instant), in arrival order.

    Syndicated copies share an ``article_id`` found by Herald's MinHash syndication index, in
    arrival order (the first copy names the article), as at ingestion.
    """
    syndication = SyndicationIndex()
    stream = []
    for position, index in enumerate(order):
        doc = docs[index]
        item, fp = _prepared(doc, enriched[index])
        published = doc.published_at or STREAM_START + timedelta(minutes=position)
        article_id = item.article_id
        if fp is not None:
            earlier = syndication.find(fp)
            if earlier is not None:
                article_id = earlier
            syndication.add(article_id, fp)
        stream.append(
            (index, replace(item, article_id=article_id, published_at=published), published)
        )
    return stream
