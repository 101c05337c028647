"""Source adapters, one per ingestion format, behind :class:`SourceAdapter`."""

from __future__ import annotations

from collections.abc import Callable

from herald.core.clock import Clock
from herald.ingest.fetch import Fetcher
from herald.ingest.sources.base import Document, SourceAdapter
from herald.ingest.sources.detect import FORMATS, detect_format
from herald.ingest.sources.feeds import FeedAdapter
from herald.ingest.sources.jsonfeed import JsonFeedAdapter
from herald.ingest.sources.jsonl import JsonLinesAdapter
from herald.ingest.sources.ninjs import NinjsAdapter

__all__ = [
    "FORMATS",
    "Document",
    "FeedAdapter",
    "JsonFeedAdapter",
    "JsonLinesAdapter",
    "NinjsAdapter",
    "SourceAdapter",
    "adapter_for",
    "detect_format",
]


def adapter_for(
    format_name: str,
    *,
    clock: Clock,
    fetcher: Fetcher | None = None,
    is_known: Callable[[str], bool] | None = None,
) -> SourceAdapter:
    """The adapter for ``jsonl``, ``rss``, ``ninjs`` or ``jsonfeed``. ``is_known`` (feeds) tells
    which content ids are stored already, so their article pages and transcripts are not fetched
    again."""
    if format_name == "jsonl":
        return JsonLinesAdapter()
    if format_name == "rss":
        return FeedAdapter(clock=clock, fetcher=fetcher, is_known=is_known)
    if format_name == "ninjs":
        return NinjsAdapter()
    if format_name == "jsonfeed":
        return JsonFeedAdapter(clock=clock)
    raise ValueError(f"unknown format {format_name!r} (expected one of {', '.join(FORMATS)})")
