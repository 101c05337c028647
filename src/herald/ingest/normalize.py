"""Validation of the ingestion format, shared by JSON Lines files, the CLI and
``POST /v1/admin/content``: a mapping in, an :class:`IncomingItem` or an :class:`ItemRejected` out.

Also the small normalisers every adapter uses (publication dates to UTC, language codes,
whitespace, author lists).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from herald.core.languages import is_language_tag, normalise_language
from herald.ingest.cleaning import clean_text
from herald.ingest.dates import parse_published_date
from herald.ingest.model import (
    MEDIA_TYPES,
    IncomingItem,
    MediaType,
    PodcastRef,
    SourceRef,
    TranscriptSegment,
    storage_problem,
)
from herald.ingest.people import person_name, split_authors, unique_names
from herald.ingest.required import missing_fields, refusal
from herald.ingest.urls import InvalidUrl, canonical_url, normalise_domain
from herald.ingest.zones import UnknownTimeZone

__all__ = [
    "ALLOWED_FIELDS",
    "ItemRejected",
    "clean_text",
    "item_from_mapping",
    "normalise_language",
    "parse_published_date",
    "split_authors",
]

REQUIRED_NOTE = "url (or source + external_id), media_type, title, published_date, source"
ALLOWED_FIELDS = frozenset(
    {
        "url",
        "media_type",
        "title",
        "published_date",
        "source",
        "external_id",
        "language",
        "authors",
        "summary",
        "body",
        "podcast",
        "episode_id",
        "audio_url",
        "duration_seconds",
        "transcript",
        "transcript_segments",
    }
)
_PODCAST_ONLY = (
    "podcast",
    "episode_id",
    "audio_url",
    "duration_seconds",
    "transcript",
    "transcript_segments",
)
MAX_TITLE = 1_000
MAX_TEXT = 5_000_000
MAX_SEGMENTS = 50_000


class ItemRejected(ValueError):
    """An entry that does not meet the ingestion format; ``field`` names the culprit."""

    def __init__(self, reason: str, *, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.field = field


def item_from_mapping(obj: object) -> IncomingItem:
    """Validate one entry of the ingestion format (docs/ingestion.md).

    Unknown fields are rejected (a typo such as ``publised_date`` must not pass silently).
    """
    if not isinstance(obj, Mapping):
        raise ItemRejected(f"expected a JSON object, got {_json_type(obj)}")
    data = cast(Mapping[str, Any], obj)
    unknown = sorted(k for k in data if k not in ALLOWED_FIELDS)
    if unknown:
        raise ItemRejected(f"unknown field {unknown[0]!r}", field=unknown[0])
    missing = missing_fields(data)
    if len(missing) > 1:  # one alone gets its own message below
        raise ItemRejected(refusal(missing), field=missing[0])

    media_type = _required_str(data, "media_type")
    if media_type not in MEDIA_TYPES:
        raise ItemRejected(
            f"media_type must be one of news, wire, podcast (got {media_type!r})",
            field="media_type",
        )
    title = clean_text(_required_str(data, "title"))
    if not title:
        raise ItemRejected("title is empty", field="title")
    if len(title) > MAX_TITLE:
        raise ItemRejected(f"title longer than {MAX_TITLE} characters", field="title")
    published = _published(data)
    source = _source(data.get("source"))
    url = _optional_url(data, "url")
    external_id = _optional_str(data, "external_id")
    if url is None and not external_id:
        raise ItemRejected("needs url, or source with external_id", field="url")

    if media_type != "podcast":
        present = [name for name in _PODCAST_ONLY if data.get(name) is not None]
        if present:
            raise ItemRejected(f"{present[0]} is only for podcast items", field=present[0])

    body = _optional_text(data, "body")
    transcript = _optional_text(data, "transcript")
    segments = _segments(data.get("transcript_segments"))
    if media_type in ("news", "wire") and not body:
        raise ItemRejected(f"body is required for {media_type} items", field="body")
    if media_type == "podcast":
        if body:
            raise ItemRejected("podcast items carry a transcript, not a body", field="body")
        if not transcript and not segments:
            raise ItemRejected(
                "podcast items need transcript or transcript_segments", field="transcript"
            )

    try:
        item = IncomingItem(
            media_type=cast(MediaType, media_type),
            title=title,
            published_date=published,
            source=source,
            url=url,
            external_id=external_id,
            authors=_authors(data.get("authors")),
            language=_language(data.get("language")),
            summary=_optional_text(data, "summary"),
            body=body,
            podcast=_podcast(data.get("podcast")),
            episode_id=_optional_str(data, "episode_id"),
            audio_url=_optional_url(data, "audio_url"),
            duration_seconds=_duration(data.get("duration_seconds")),
            transcript=transcript,
            transcript_segments=segments,
        )
    except UnicodeError:  # a lone surrogate cannot even be hashed into the item's id
        raise ItemRejected("the entry is not valid Unicode (a lone surrogate)") from None
    problem = storage_problem(item)
    if problem is not None:
        raise ItemRejected(problem[1], field=problem[0])
    return item


# --- field readers -------------------------------------------------------------------------


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _required_str(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if value is None:
        raise ItemRejected(f"{name} is required", field=name)
    if not isinstance(value, str):
        raise ItemRejected(f"{name} must be a string, got {_json_type(value)}", field=name)
    return value


def _optional_str(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ItemRejected(f"{name} must be a string, got {_json_type(value)}", field=name)
    value = value.strip()
    return value or None


def _optional_text(data: Mapping[str, Any], name: str) -> str | None:
    value = _optional_str(data, name)
    if value is None:
        return None
    if len(value) > MAX_TEXT:
        raise ItemRejected(f"{name} longer than {MAX_TEXT} characters", field=name)
    return clean_text(value, keep_newlines=True) or None


def _optional_url(data: Mapping[str, Any], name: str) -> str | None:
    value = _optional_str(data, name)
    if value is None:
        return None
    try:
        canonical_url(value)
    except InvalidUrl as exc:
        raise ItemRejected(f"{name}: {exc}", field=name) from None
    return value


def _published(data: Mapping[str, Any]) -> datetime:
    value = _required_str(data, "published_date")
    try:
        return parse_published_date(value)
    except UnknownTimeZone:
        raise ItemRejected(
            f"published_date has an unknown or ambiguous time zone: {value[:60]!r}",
            field="published_date",
        ) from None
    except ValueError as exc:
        if str(exc).startswith("date out of range"):
            raise ItemRejected(
                f"published_date is out of range (no UTC instant): {value[:60]!r}",
                field="published_date",
            ) from None
        raise ItemRejected(
            f"published_date is not an ISO 8601 date or datetime: {value[:60]!r}",
            field="published_date",
        ) from None


def _source(value: object) -> SourceRef:
    if value is None:
        raise ItemRejected("source is required ({name, domain})", field="source")
    if not isinstance(value, Mapping):
        raise ItemRejected("source must be an object {name, domain}", field="source")
    unknown = sorted(k for k in value if k not in ("name", "domain"))
    if unknown:
        raise ItemRejected(f"unknown field 'source.{unknown[0]}'", field=f"source.{unknown[0]}")
    name = value.get("name")
    domain = value.get("domain")
    if not isinstance(name, str) or not name.strip():
        raise ItemRejected("source.name is required (a string)", field="source.name")
    if not isinstance(domain, str) or not domain.strip():
        raise ItemRejected("source.domain is required (a string)", field="source.domain")
    try:
        normalised = normalise_domain(domain)
    except InvalidUrl as exc:
        raise ItemRejected(f"source.domain: {exc}", field="source.domain") from None
    return SourceRef(name=clean_text(name), domain=normalised)


def _authors(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return split_authors(value)
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise ItemRejected("authors must be an array of strings", field="authors")
    # One person per entry; e-mail forms and placeholders ("Staff Writer") as in bylines.
    return unique_names(name for a in value if (name := person_name(a)))


def _language(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ItemRejected("language must be a string", field="language")
    if not value.strip():
        return None
    if not is_language_tag(value):
        raise ItemRejected(f"language is not a language code: {value[:20]!r}", field="language")
    return normalise_language(value)


def _podcast(value: object) -> PodcastRef | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ItemRejected(
            "podcast must be an object {podcast_id?, title, publisher?}", field="podcast"
        )
    unknown = sorted(k for k in value if k not in ("podcast_id", "title", "publisher"))
    if unknown:
        raise ItemRejected(f"unknown field 'podcast.{unknown[0]}'", field=f"podcast.{unknown[0]}")
    title = value.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ItemRejected("podcast.title is required (a string)", field="podcast.title")
    podcast_id = _optional_str(value, "podcast_id")
    publisher = _optional_str(value, "publisher")
    return PodcastRef(title=clean_text(title), podcast_id=podcast_id, publisher=publisher)


def _duration(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ItemRejected("duration_seconds must be a number", field="duration_seconds")
    if value < 0:
        raise ItemRejected("duration_seconds must not be negative", field="duration_seconds")
    return float(value)


def _segments(value: object) -> tuple[TranscriptSegment, ...]:
    if value is None:
        return ()
    name = "transcript_segments"
    if not isinstance(value, list):
        raise ItemRejected(f"{name} must be an array", field=name)
    if len(value) > MAX_SEGMENTS:
        raise ItemRejected(f"{name} has more than {MAX_SEGMENTS} segments", field=name)
    segments: list[TranscriptSegment] = []
    for index, raw in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(raw, Mapping):
            raise ItemRejected(f"{where} must be an object", field=where)
        unknown = sorted(k for k in raw if k not in ("start", "end", "speaker", "text"))
        if unknown:
            raise ItemRejected(f"unknown field '{where}.{unknown[0]}'", field=where)
        start, end = raw.get("start"), raw.get("end")
        for label, number in (("start", start), ("end", end)):
            if (
                isinstance(number, bool)
                or not isinstance(number, int | float)
                or not math.isfinite(number)
                or number < 0
            ):
                raise ItemRejected(
                    f"{where}.{label} must be a number of seconds >= 0", field=f"{where}.{label}"
                )
        assert isinstance(start, int | float)
        assert isinstance(end, int | float)
        if end < start:
            raise ItemRejected(f"{where}.end is before its start", field=f"{where}.end")
        text = raw.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ItemRejected(f"{where}.text is required (a string)", field=f"{where}.text")
        speaker = raw.get("speaker")
        if speaker is not None and not isinstance(speaker, str):
            raise ItemRejected(
                f"{where}.speaker must be a string or null", field=f"{where}.speaker"
            )
        segments.append(
            TranscriptSegment(
                start=float(start),
                end=float(end),
                text=clean_text(text, keep_newlines=True),
                speaker=clean_text(speaker) or None if speaker else None,
            )
        )
    return tuple(segments)
