"""A synthetic content collection of any size for the search latency benchmark.

How it is made (deterministic, seed 5):
- Passages: the 5,183 SciFact abstracts, the 982 ECB+ news articles and the 428 WCEP event
  summaries of the data folder the scripts take as ``--data DIR`` (real English text;
  docs/benchmarks.md, "Datasets", says where to get each). Each passage is
  embedded once with Herald's embedder (what enrichment stores), cached in HERALD_BENCH_CACHE.
- Item i picks a main passage p and a second passage q. Its title is one sentence of p (at most
  14 words); its body is 3-8 sentences of p followed by 1-3 of q; its summary is the first body
  sentence and its key points the next three, shortened. Its vector is
  ``normalise(0.7 v(p) + 0.3 v(q) + 0.25 n)`` with n a random unit vector: close to what the
  model gives such a text, at no model cost per item (embedding a million items would take days
  on this machine).
- Metadata: published uniformly over the 365 days before ``TODAY``; media type news 70%, wire
  20%, podcast 10%; 3,000 source domains drawn by a Zipf law, a fifth of items on a subdomain
  (news./live./blog.); 0-4 linked entities out of 20,000, Zipf-distributed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import insert

import search_scifact_data as scifact
from herald.core.ids import stable_id
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.enrich.embedding import embedding_text

DATASETS = ("scifact-beir", "ecbplus", "wcep-wikitimes-2015-09")  # read from the data folder
TODAY = datetime(2026, 11, 25, tzinfo=UTC)
SPAN_DAYS = 365
N_DOMAINS = 3000
N_ENTITIES = 20_000
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


@dataclass(frozen=True)
class Passage:
    title: str
    sentences: list[str]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.replace("\n", " ")) if len(s.strip()) > 20]


def passages(folder: Path) -> list[Passage]:
    """The passages of the datasets in ``folder`` (the data folder: one sub-folder each)."""
    out = []
    data = scifact.load(folder / "scifact-beir")
    for doc in data.docs:  # all of them, in corpus order (their vectors are looked up by position)
        out.append(Passage(doc["title"], _sentences(doc["text"]) or [doc["title"]]))
    for line in (folder / "ecbplus" / "docs.jsonl").open():
        doc = json.loads(line)
        lines = [x.strip() for x in doc["text"].split("\n") if x.strip()]
        if len(lines) >= 2:
            out.append(Passage(lines[0], _sentences(" ".join(lines[1:])) or lines[1:]))
    for event in json.loads(
        (folder / "wcep-wikitimes-2015-09" / "wikitimes_CEP_2015-09.json").read_text()
    ):
        text = event["description"].strip()
        out.append(
            Passage(
                event["belongsToStory"]["name"] if event.get("belongsToStory") else text[:80],
                _sentences(text) or [text],
            )
        )
    return out[: len(data.docs)] + [p for p in out[len(data.docs) :] if p.sentences]


def passage_vectors(
    items: list[Passage], embedder: scifact.TextEncoder, folder: Path
) -> np.ndarray:
    """One vector per passage (of ``passages(folder)``). SciFact abstracts reuse the item
    embeddings stored by the SciFact evaluation's `herald ingest` when that has run (same
    model, same text); the rest are embedded here (and cached)."""
    texts = [embedding_text(p.title, " ".join(p.sentences)) for p in items]
    stored = _stored_scifact_vectors(folder)
    if stored is None:
        return scifact.cached_embeddings(texts, embedder)
    n = len(stored)
    rest = scifact.cached_embeddings(texts[n:], embedder)
    return np.vstack([stored, rest]).astype(np.float32)


def _stored_scifact_vectors(folder: Path) -> np.ndarray | None:
    import sqlite3

    db = scifact.cache_dir() / "scifact-home" / "herald.db"
    if not (scifact.cache_dir() / "scifact-home" / "ingested.ok").exists():
        return None
    order = {doc["_id"]: i for i, doc in enumerate(scifact.load(folder / "scifact-beir").docs)}
    out = np.zeros((len(order), 384), dtype=np.float32)
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT c.url, e.vector FROM content_items c "
            "JOIN content_embeddings e ON e.content_id = c.id"
        ).fetchall()
    for url, blob in rows:
        out[order[url.removeprefix(scifact.URL_PREFIX)]] = np.frombuffer(blob, dtype="<f4")
    return out


def _words(sentence: str, limit: int) -> str:
    words = sentence.split()
    return " ".join(words[:limit]).rstrip(",;:")


def _zipf_choice(rng: np.random.Generator, n: int, size: int, a: float = 1.1) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype=np.float64)
    weights = ranks ** (-a)
    return rng.choice(n, size=size, p=weights / weights.sum())


def domain_names() -> list[str]:
    rng = np.random.default_rng(55)
    tlds = ["com", "org", "net", "co.uk", "de", "fr", "io", "news", "com.au", "ca"]
    names = []
    for i in range(N_DOMAINS):
        stem = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=rng.integers(4, 10)))
        names.append(f"{stem}{i}.{tlds[i % len(tlds)]}")
    return names


def entity_ids() -> list[str]:
    return [stable_id("ent", f"synthetic:{i}") for i in range(N_ENTITIES)]


def entity_rows(now: datetime) -> list[dict[str, Any]]:
    """The entities' rows, as the items link them (imported companies, "Entity <i>")."""
    return [
        {
            "id": eid,
            "display_name": f"Entity {i}",
            "entity_kind": "company",
            "description": "",
            "aliases": [],
            "tags": [],
            "origin": "import",
            "created_at": now,
            "updated_at": now,
        }
        for i, eid in enumerate(entity_ids())
    ]


@dataclass
class SyntheticBatch:
    rows: list[dict[str, object]]
    entities: list[tuple[str, str, datetime, str]]  # content id, entity id, published, media
    vectors: np.ndarray  # float32, one row per item


def generate(
    count: int, items: list[Passage], vectors: np.ndarray, *, batch: int = 5000, seed: int = 5
) -> Iterator[SyntheticBatch]:
    rng = np.random.default_rng(seed)
    domains = domain_names()
    entities = entity_ids()
    now = TODAY
    for start in range(0, count, batch):
        n = min(batch, count - start)
        p_idx = rng.integers(0, len(items), n)
        q_idx = rng.integers(0, len(items), n)
        noise = rng.normal(size=(n, vectors.shape[1])).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        mixed = 0.7 * vectors[p_idx] + 0.3 * vectors[q_idx] + 0.25 * noise
        mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
        media = rng.choice(["news", "wire", "podcast"], size=n, p=[0.7, 0.2, 0.1])
        dom = _zipf_choice(rng, N_DOMAINS, n)
        sub = rng.random(n) < 0.2
        subname = rng.choice(["news", "live", "blog"], size=n)
        seconds = rng.integers(0, SPAN_DAYS * 86400, n)
        n_ent = rng.integers(0, 5, n)
        ent = _zipf_choice(rng, N_ENTITIES, int(n_ent.sum()))
        rows: list[dict[str, object]] = []
        links: list[tuple[str, str, datetime, str]] = []
        e_pos = 0
        for j in range(n):
            i = start + j
            p, q = items[p_idx[j]], items[q_idx[j]]
            body_p = list(
                rng.choice(
                    p.sentences, size=min(len(p.sentences), int(rng.integers(3, 9))), replace=False
                )
            )
            body_q = list(
                rng.choice(
                    q.sentences, size=min(len(q.sentences), int(rng.integers(1, 4))), replace=False
                )
            )
            body = body_p + body_q
            title = _words(str(rng.choice([p.title, *p.sentences])), 14)
            host = domains[dom[j]]
            if sub[j]:
                host = f"{subname[j]}.{host}"
            key = f"https://{host}/story/{i}"
            cid = stable_id("cnt", key)
            published = now - timedelta(seconds=int(seconds[j]))
            row: dict[str, object] = {
                "id": cid,
                "canonical_key": key,
                "media_type": str(media[j]),
                "url": key,
                "source_name": host.split(".")[-2].title(),
                "source_domain": host,
                "title": title,
                "authors": [],
                "language": "en",
                "published_at": published,
                "body": " ".join(body),
                "summary": body[0],
                "summary_provided": False,
                "summaries": [{"style": "brief", "text": body[0]}],
                "key_points": [_words(s, 20) for s in body[1:4]],
                "segments": [],
                "word_count": sum(len(s.split()) for s in body),
                "content_hash": cid,
                "article_id": stable_id("art", key) if media[j] != "podcast" else None,
                "podcast_id": "synthetic-show" if media[j] == "podcast" else None,
                "episode_id": f"ep-{i}" if media[j] == "podcast" else None,
                "enriched_at": published + timedelta(minutes=5),
                "change_seq": i + 1,
                "version": 1,
                "created_at": published,
                "updated_at": published,
            }
            rows.append(row)
            for e in ent[e_pos : e_pos + n_ent[j]]:
                links.append((cid, entities[e], published, str(media[j])))
            e_pos += n_ent[j]
        yield SyntheticBatch(rows, list(dict.fromkeys(links)), mixed.astype(np.float32))


def write_batch(
    conn: Any, batch: SyntheticBatch, model: str, *, embedded_at: datetime | None = None
) -> None:
    """Insert a batch as enrichment leaves it: items, entity links, embeddings (each embedding
    dated ``embedded_at``, else its item's ``enriched_at``). ``conn``: a connection or session."""
    conn.execute(insert(ContentItem), batch.rows)
    if batch.entities:
        conn.execute(
            insert(ContentEntity),
            [
                {
                    "content_id": cid,
                    "entity_id": eid,
                    "mention_count": 1,
                    "salience": 0.5,
                    "confidence": 0.9,
                    "published_at": published,
                    "media_type": media,
                }
                for cid, eid, published, media in batch.entities
            ],
        )
    conn.execute(
        insert(ContentEmbedding),
        [
            {
                "content_id": row["id"],
                "model": model,
                "dim": batch.vectors.shape[1],
                "vector": vec.astype("<f4").tobytes(),
                "updated_at": embedded_at or row["enriched_at"],
            }
            for row, vec in zip(batch.rows, batch.vectors, strict=True)
        ],
    )
