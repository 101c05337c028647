"""How an incoming item is stored: its row of ``content_items`` and its content hash.

The content hash says what makes two versions of an item different: an item received again
with the same hash is a duplicate and nothing is written. An update whose enrichment input
(:mod:`herald.enrich.inputs`) is the one its stored enrichment was made from keeps
that enrichment.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from prometheus_client import Counter

from herald.db.content_limits import SOURCE_NAME_MAX
from herald.enrich.inputs import enrichment_input
from herald.ingest.articles import word_count
from herald.ingest.model import IncomingItem

if TYPE_CHECKING:
    from herald.ingest.repository import StoredState

__all__ = [
    "content_hash",
    "count_updates",
    "enrichment_input_of_update",
    "keep_enrichment",
    "stored_row",
]

UPDATES = Counter(
    "herald_ingest_updates_total",
    "Stored items updated by this process, by whether they kept their enrichment (kept) or "
    "were queued to be enriched again (redone)",
    ["enrichment"],
)
for _enrichment in ("kept", "redone"):  # both series exist from the start, at 0
    UPDATES.labels(_enrichment)


def stored_row(
    item: IncomingItem,
    digest: str,
    article_id: str | None,
    source_id: str | None,
    words: int | None,
) -> dict[str, Any]:
    """The columns of ``item`` as stored (``digest``: its :func:`content_hash`; ``words``: its
    word count when already counted)."""
    text = item.text
    podcast = item.podcast
    return {
        "id": item.content_id,
        "canonical_key": item.canonical_key,
        "media_type": item.media_type,
        "url": item.url,
        "external_id": item.external_id,
        "source_id": source_id,
        "source_name": item.source.name[:SOURCE_NAME_MAX],
        "source_domain": item.source.domain,
        "title": item.title,
        "authors": list(item.authors),
        "language": item.language,
        "language_provided": item.language is not None,
        "published_at": item.published_date,
        # For podcasts the body column holds the transcript text (never shown by the API).
        "body": text,
        "transcript_segments": [
            {"start": s.start, "end": s.end, "speaker": s.speaker, "text": s.text}
            for s in item.transcript_segments
        ]
        or None,
        "summary": item.summary,
        "summary_provided": item.summary is not None,
        "word_count": words if words is not None else word_count(text),
        "content_hash": digest,
        "article_id": article_id,
        "podcast_id": item.resolved_podcast_id,
        "podcast_title": podcast.title if podcast else None,
        "podcast_publisher": podcast.publisher if podcast else None,
        "episode_id": item.resolved_episode_id,
        "audio_url": item.audio_url,
        "duration_seconds": (
            round(item.duration_seconds) if item.duration_seconds is not None else None
        ),
    }


def content_hash(item: IncomingItem) -> str:
    """What makes two versions of an item different (an estimated date never does)."""
    payload = {
        "media_type": item.media_type,
        "title": item.title,
        "url": item.url,
        "external_id": item.external_id,
        "source": [item.source.name, item.source.domain],
        "authors": list(item.authors),
        "language": item.language,
        "published": None if item.published_is_estimate else item.published_date.isoformat(),
        "summary": item.summary,
        "body": item.body,
        "transcript": item.transcript,
        "segments": [[s.start, s.end, s.speaker, s.text] for s in item.transcript_segments],
        "podcast": [item.resolved_podcast_id, item.podcast.title, item.podcast.publisher]
        if item.podcast
        else None,
        "episode_id": item.episode_id,
        "audio_url": item.audio_url,
        "duration": item.duration_seconds,
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


def enrichment_input_of_update(row: Mapping[str, Any], state: StoredState) -> str:
    """The enrichment input of an item once ``row`` (an update of a stored item) is written:
    a field the update leaves out keeps its stored value (a detected language; a summary that
    enrichment wrote, which the source did not give)."""
    kept = {"language": state.language, "summary": None, "summary_provided": False}
    return enrichment_input(kept | dict(row))


def keep_enrichment(
    updates: Sequence[dict[str, Any]],
    inputs: Mapping[str, str],
    enriched_from: Mapping[str, str | None],
    states: Mapping[str, StoredState],
) -> set[str]:
    """The updated items whose stored enrichment was made from what the update leaves enrichment
    to read: they keep it (their ``word_count`` is enrichment's, not overwritten). The others'
    enrichment input is cleared: the update overwrites part of their enrichment (a given summary
    or language, the word count) until they are enriched again."""
    kept: set[str] = set()
    for row in updates:
        cid = row["id"]
        found = enriched_from.get(cid)
        if found is not None and found == inputs[cid] and not states[cid].deleted:
            kept.add(cid)
            del row["word_count"]
        else:
            row["enrichment_input"] = None
    return kept


def count_updates(kept: int, redone: int) -> None:
    """Count committed updates: ``kept`` kept their enrichment, ``redone`` are enriched again."""
    UPDATES.labels("kept").inc(kept)
    UPDATES.labels("redone").inc(redone)
