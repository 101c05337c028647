"""SciFact (BEIR format) for the search evaluations: loading, metrics, and Herald's copy of it.

Shared by ``search_scifact_tune.py`` (fits the relevance model on the train split) and
``search_scifact_eval.py`` (reports the test split). The collection goes through Herald's own
path: it is written as Herald's JSON Lines ingestion format and loaded with ``herald ingest``
(ingestion, enrichment with summaries, key points, entities and embeddings, indexing) into a
data directory kept in ``HERALD_BENCH_CACHE`` (default ``~/.cache/herald-bench``), built once.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

PUBLISHED = "2024-01-01T00:00:00Z"  # SciFact has no dates: every abstract gets this one
WINDOW = ("2023-12-15", "2024-01-15")  # the explicit window of every evaluation request
URL_PREFIX = "https://scifact.example.org/abstract/"


@dataclass(frozen=True)
class SciFact:
    docs: list[dict[str, str]]
    queries: dict[str, str]
    train: dict[str, set[str]]
    test: dict[str, set[str]]


def load(data: Path) -> SciFact:
    """SciFact from the dataset's folder ``data`` (``scifact-beir``: BEIR's layout)."""
    docs = [json.loads(line) for line in (data / "corpus.jsonl").open()]
    queries = {}
    for line in (data / "queries.jsonl").open():
        row = json.loads(line)
        queries[row["_id"]] = row["text"]

    def qrels(split: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for line in (data / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]:
            qid, did, score = line.split("\t")
            if int(score) > 0:
                out.setdefault(qid, set()).add(did)
        return out

    return SciFact(docs, queries, qrels("train"), qrels("test"))


def ndcg_at_10(ranked: Sequence[str], relevant: set[str]) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    return dcg / ideal


def recall_at_100(ranked: Sequence[str], relevant: set[str]) -> float:
    return len(set(ranked[:100]) & relevant) / len(relevant)


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def cache_dir() -> Path:
    path = Path(os.environ.get("HERALD_BENCH_CACHE", Path.home() / ".cache" / "herald-bench"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_jsonl(data: SciFact, path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for doc in data.docs:
            line = {
                "url": URL_PREFIX + doc["_id"],
                "media_type": "news",
                "title": doc["title"],
                "published_date": PUBLISHED,
                "source": {"name": "SciFact", "domain": "scifact.example.org"},
                "body": doc["text"] or doc["title"],
                "language": "en",
                "external_id": doc["_id"],
            }
            out.write(json.dumps(line) + "\n")


def herald_home(data: SciFact) -> Path:
    """A data directory holding SciFact as ``herald ingest`` stores, enriches and indexes it."""
    from herald.config import Settings

    # One collection per embedding precision (HERALD_EMBEDDING_PRECISION): their vectors differ.
    precision = Settings(entity_seed="none", database_url=None).embedding_precision
    home = cache_dir() / f"scifact-home-{precision}"
    done = home / "ingested.ok"
    if done.exists():
        return home
    if home.exists():
        shutil.rmtree(home)  # an interrupted build: start over
    home.mkdir(parents=True)
    jsonl = cache_dir() / "scifact.jsonl"
    write_jsonl(data, jsonl)
    # Entities play no part in SciFact retrieval: a lighter entity step (no 40,000-entity seed,
    # named-entity recognition on the first 600 characters) makes this one-off build take a
    # fraction of the time on the shared 2-core machine. Every other step is the default.
    env = {
        **os.environ,
        "HERALD_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "HERALD_ENTITY_SEED": "none",
        "HERALD_NER_MAX_CHARS": "600",
    }
    env.pop("HERALD_DATABASE_URL", None)
    herald = str(Path(sys.executable).with_name("herald"))
    subprocess.run([herald, "db", "upgrade"], env=env, check=True)
    print("ingesting SciFact with `herald ingest` (enrichment takes a while)...", file=sys.stderr)
    subprocess.run([herald, "ingest", str(jsonl)], env=env, check=True)
    done.write_text("ok\n")
    return home


class TextEncoder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def cached_embeddings(texts: Sequence[str], embedder: TextEncoder) -> np.ndarray:
    """Vectors of ``texts``, computed once and cached by a hash of the texts."""
    digest = hashlib.sha256(b"herald-embedder")
    for text in texts:
        digest.update(text.encode("utf-8") + b"\0")
    path = cache_dir() / f"emb-{digest.hexdigest()[:16]}.npy"
    if path.exists():
        return np.load(path)
    order = np.argsort([len(t) for t in texts])  # similar lengths batch with less padding
    out: np.ndarray | None = None
    for start in range(0, len(texts), 64):
        chunk = order[start : start + 64]
        vectors = embedder.embed([texts[i] for i in chunk])
        if out is None:
            out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        out[chunk] = vectors
    assert out is not None
    np.save(path, out)
    return out


PG_ADMIN = os.environ.get("HERALD_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")


def pg_database() -> str:
    """One PostgreSQL database per cache folder, so runs from other folders leave it alone."""
    import hashlib

    return "herald_bench_scifact_" + hashlib.sha256(str(cache_dir()).encode()).hexdigest()[:8]


def postgres_copy(home: Path) -> str:
    """The SQLite state of ``home`` copied into a PostgreSQL database (built once); its URL.

    What `herald ingest` stored (items, entities and links, embeddings) is copied row for row,
    so the PostgreSQL adapter is evaluated on exactly the same items.
    """
    import psycopg
    from sqlalchemy import create_engine, func, insert, select, text

    from herald.db.base import Base
    from herald.db.migrate import upgrade

    name = pg_database()
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    done = home / "postgres-copy.ok"
    if done.exists():
        return url
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    upgrade(url)
    source = create_engine(f"sqlite:///{home / 'herald.db'}")
    target = create_engine(url)
    tables = (
        "entities",
        "entity_aliases",
        "content_items",
        "content_entities",
        "content_embeddings",
    )
    with source.connect() as read, target.begin() as write:
        for name in tables:
            table = Base.metadata.tables[name]
            rows = [dict(r._mapping) for r in read.execute(select(table))]
            for start in range(0, len(rows), 2000):
                write.execute(insert(table), rows[start : start + 2000])
        top = read.execute(select(func.max(Base.metadata.tables["content_items"].c.change_seq)))
        write.execute(text(f"SELECT setval('content_change_seq', {int(top.scalar_one() or 1)})"))
    done.write_text("ok\n")
    return url
