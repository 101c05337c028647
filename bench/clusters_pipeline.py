"""Replaying a dataset through Herald itself: `herald ingest` of a JSON Lines file in arrival order
(ingestion, syndication, enrichment, search indexing and the clustering jobs, exactly as an
operator runs it), then reading each item's ``cluster_id`` from the database.

A fresh data directory (SQLite) per run, kept under ``HERALD_BENCH_CACHE`` for inspection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from clusters_data import CACHE, STREAM_START, BenchDoc
from herald.config import Settings
from herald.core.clock import isoformat_z
from herald.db.models.clusters import StoryClusterMember
from herald.db.models.content import ContentItem
from herald.runtime import Runtime


def doc_url(doc: BenchDoc) -> str:
    return f"https://{doc.source_domain}/bench/{doc.doc_id}"


def write_jsonl(docs: Sequence[BenchDoc], order: Sequence[int], path: Path) -> None:
    """The pinned ingestion format, one line per document in arrival order."""
    with path.open("w", encoding="utf-8") as handle:
        for position, index in enumerate(order):
            doc = docs[index]
            published = doc.published_at or STREAM_START + timedelta(minutes=position)
            line = {
                "url": doc_url(doc),
                "media_type": "news",
                "title": doc.title,
                "published_date": isoformat_z(published),
                "source": {"name": doc.source_domain, "domain": doc.source_domain},
                "body": doc.body,
                "language": "en",
            }
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def run_herald(
    name: str, docs: Sequence[BenchDoc], order: Sequence[int]
) -> tuple[dict[int, str], dict[str, float]]:
    """Ingest ``docs`` in ``order`` with `herald ingest`; (doc index -> cluster id, timings)."""
    home = CACHE / f"pipeline-{name}-{int(time.time())}"
    home.mkdir(parents=True)
    source = home / f"{name}.jsonl"
    write_jsonl(docs, order, source)
    env = dict(os.environ)
    env.update({"HERALD_HOME": str(home), "HF_HUB_OFFLINE": "1"})
    env.pop("HERALD_DATABASE_URL", None)
    herald = str(Path(sys.executable).with_name("herald"))
    started = time.monotonic()
    subprocess.run([herald, "db", "upgrade"], env=env, check=True, capture_output=True)
    result = subprocess.run(
        [herald, "ingest", str(source), "--json"], env=env, capture_output=True, text=True
    )
    seconds = time.monotonic() - started
    if result.returncode != 0:
        raise RuntimeError(f"herald ingest failed ({result.returncode}): {result.stderr[-2000:]}")
    runtime = Runtime(Settings(home=home))
    try:
        by_url = {doc_url(doc): index for index, doc in enumerate(docs)}
        with runtime.sessions.read() as session:
            rows = session.execute(
                select(ContentItem.url, ContentItem.cluster_id, StoryClusterMember.assigned_at)
                .outerjoin(StoryClusterMember, StoryClusterMember.content_id == ContentItem.id)
                .order_by(StoryClusterMember.assigned_at, StoryClusterMember.id)
            ).all()
    finally:
        runtime.close()
    labels: dict[int, str] = {}
    missing = 0
    for url, cluster_id, _ in rows:
        index = by_url.get(url or "")
        if index is None:
            continue
        if cluster_id is None:
            missing += 1
            labels[index] = f"unclustered:{index}"
        else:
            labels[index] = cluster_id
    return labels, {"seconds": seconds, "unclustered": float(missing), "items": float(len(rows))}
