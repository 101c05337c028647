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
from typing import Any

import orjson

__all__ = ["FIELDS", "enrichment_input", "input_of_row", "transcript_pieces"]


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


# The fields of a stored item (a ``content_items`` row) that enrichment reads.
FIELDS = (
    "media_type",
    "title",
    "body",
    "transcript_segments",
    "language",
    "language_provided",
    "summary",
    "summary_provided",
    "source_domain",
    "source_name",
)


def enrichment_input(fields: Mapping[str, Any]) -> str:
    """The hash of what enrichment reads of an item whose stored :data:`FIELDS` are ``fields``:
    the language and summary only where the source gave them (a detected language and a
    generated summary are enrichment's own output), the source domain, else the source name."""
    payload = [
        fields["media_type"],
        fields["title"],
        fields["body"] or "",
        transcript_pieces(fields["transcript_segments"]),
        fields["language"] if fields["language_provided"] else None,
        fields["summary"] if fields["summary_provided"] else None,
        fields["source_domain"] or fields["source_name"],
    ]
    return hashlib.sha256(orjson.dumps(payload)).hexdigest()


def input_of_row(row: object) -> str:
    """:func:`enrichment_input` of a stored item (a ``ContentItem``) as it stands."""
    return enrichment_input({name: getattr(row, name) for name in FIELDS})
