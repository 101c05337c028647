"""The fields an entry of the ingestion format must carry, all named at once.

An entry missing several required fields is refused with every one of them named, so a client
fixes its mapping in one round instead of one field per attempt. Fields that are present but
wrong keep their own messages (:mod:`herald.ingest.normalize`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ALWAYS = ("media_type", "title", "published_date", "source")
_BODY_FOR = {"news": "body", "wire": "body"}


def missing_fields(data: Mapping[str, Any]) -> list[str]:
    """The required fields ``data`` lacks (absent or null), in the format's order: media type,
    title, publication date, source (and its name and domain), a body for news and wire
    items or a transcript for podcasts, and a url or an external id."""
    missing = [name for name in _ALWAYS if data.get(name) is None]
    source = data.get("source")
    if isinstance(source, Mapping):
        missing += [f"source.{part}" for part in ("name", "domain") if source.get(part) is None]
    media_type = data.get("media_type")
    if media_type in _BODY_FOR and data.get("body") is None:
        missing.append("body")
    if media_type == "podcast" and all(
        data.get(name) is None for name in ("transcript", "transcript_segments")
    ):
        missing.append("transcript")
    if data.get("url") is None and data.get("external_id") is None:
        missing.append("url")
    return missing


def refusal(missing: list[str]) -> str:
    """The message naming every missing field (``url`` read as "url or external_id")."""
    named = ["url (or external_id)" if name == "url" else name for name in missing]
    return f"missing required fields: {', '.join(named)}"
