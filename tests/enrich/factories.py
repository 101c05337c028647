"""Plain factory functions for content items and a small seed file (tests of enrich/entities)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from herald.core.ids import stable_id
from herald.db.models.content import ContentItem
from tests.enrich.models import seed_records

SMALL_SEED_NAMES = {
    ("Apple Inc.", "company"),
    ("Alphabet Inc.", "company"),
    ("Microsoft", "company"),
    ("Amazon", "company"),
    ("Meta Platforms", "company"),
    ("Intel", "company"),
    ("HP Inc.", "company"),
    ("SAP", "company"),
    ("United Kingdom", "place"),
    ("United States", "place"),
    ("France", "place"),
    ("Paris", "place"),
    ("Cannes", "place"),
    ("Los Angeles", "place"),
    ("California", "place"),
    ("San Francisco", "place"),
    ("New York City", "place"),
    ("Europe", "place"),
    ("Tim Cook", "person"),
    ("United Nations", "organization"),
}


def write_small_seed(path: Path) -> Path:
    """A seed of a few dozen real entities (the bundled one takes seconds to load per test)."""
    with path.open("w", encoding="utf-8") as handle:
        for record in seed_records():
            if (record.display_name, record.entity_kind) in SMALL_SEED_NAMES:
                handle.write(json.dumps(record.as_dict(), ensure_ascii=False) + "\n")
    return path


def make_item(
    session: Session,
    *,
    title: str,
    body: str = "",
    published_at: datetime,
    now: datetime,
    media_type: str = "news",
    source_name: str = "Example News",
    transcript: Sequence[dict[str, Any]] | None = None,
    language: str | None = None,
    summary: str | None = None,
) -> ContentItem:
    key = f"https://example.com/{hashlib.sha1(title.encode()).hexdigest()[:12]}"
    text = body or "\n".join(str(p["text"]) for p in transcript or ())
    item = ContentItem(
        id=stable_id("cnt", key),
        canonical_key=key,
        media_type=media_type,
        url=key,
        source_name=source_name,
        source_domain="example.com",
        title=title,
        authors=[],
        language=language,
        language_provided=language is not None,  # as ingestion stores a source's language
        published_at=published_at,
        body=body,
        transcript_segments=list(transcript) if transcript else None,
        summary=summary,
        summary_provided=summary is not None,
        summaries=[],
        key_points=[],
        segments=[],
        word_count=len(text.split()),
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
        change_seq=0,
        version=1,
        created_at=now,
        updated_at=now,
    )
    session.add(item)
    session.flush()
    return item
