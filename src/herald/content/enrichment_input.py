"""What enrichment reads of an item, as one hash: an update that changes none of it keeps the
item's enrichment.

Enrichment reads an item's media type, title, text (the body, or the transcript and its
segments), the language and the summary its source gave (a detected language and a generated
summary are enrichment's own output), and, for the confirmation of the entity names it finds,
its source (the domain, else the source name). Nothing else of the item changes what enrichment
produces: a new ``audio_url`` (podcast hosts rewrite enclosure URLs constantly), ``authors``,
``url``, ``episode_id``, ``duration_seconds`` or podcast details leave it as it was. The
publication time is not read either; enrichment copies it into the entity links, and an update
that moves it moves them too (:mod:`herald.ingest.service`).

``content_items.enrichment_input`` holds the hash of the input the stored enrichment was made
from, and is cleared when an update overwrites part of that enrichment (a given summary or
language, the word count); ingestion keeps the enrichment of an update whose input hash is the
stored one, and enrichment stores its results only while the item's input is still the one it
read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import orjson

__all__ = ["enrichment_input", "input_of_row", "transcript_pieces"]


def transcript_pieces(
    segments: Iterable[Mapping[str, Any]] | None,
) -> list[tuple[float, float, str, str | None]]:
    """Stored transcript segments as enrichment reads them: ``(start, end, text, speaker)``."""
    return [
        (
            float(p.get("start", 0.0)),
            float(p.get("end", p.get("start", 0.0))),
            str(p.get("text", "")),
            p.get("speaker"),
        )
        for p in segments or ()
    ]


def enrichment_input(
    *,
    media_type: str,
    title: str,
    body: str | None,
    transcript_segments: Iterable[Mapping[str, Any]] | None,
    language: str | None,
    summary: str | None,
    source: str,
) -> str:
    """The hash of what enrichment reads (``language`` and ``summary``: those the source gave,
    else None; ``source``: the item's source domain, else its source name)."""
    payload = [
        media_type,
        title,
        body or "",
        transcript_pieces(transcript_segments),
        language,
        summary,
        source,
    ]
    return hashlib.sha256(orjson.dumps(payload)).hexdigest()


class _Stored(Protocol):
    media_type: str
    title: str
    body: str
    transcript_segments: list[dict[str, Any]] | None
    language: str | None
    language_provided: bool
    summary: str | None
    summary_provided: bool
    source_domain: str
    source_name: str


def input_of_row(row: _Stored) -> str:
    """:func:`enrichment_input` of a stored item as it stands."""
    return enrichment_input(
        media_type=row.media_type,
        title=row.title,
        body=row.body,
        transcript_segments=row.transcript_segments,
        language=row.language if row.language_provided else None,
        summary=row.summary if row.summary_provided else None,
        source=row.source_domain or row.source_name,
    )
