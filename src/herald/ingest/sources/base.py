"""The one small interface every ingestion format implements.

An adapter turns a document (bytes plus where they came from) into a stream of outcomes: a
normalised :class:`IncomingItem` for each good entry, an :class:`ItemError` for each entry that
cannot be used (the rest still parses), and :class:`ItemWarning` notes for accepted entries that
lost something on the way. Adapters never touch the database; the ingest service stores what
they yield.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from herald.ingest.model import MediaType, ParseOutcome, SourceRef


@dataclass(frozen=True, slots=True)
class Document:
    """Raw input: a file's or an HTTP response's bytes.

    ``origin`` (a path or URL) names it in messages and resolves relative links, unless
    ``base_url`` is given: the URL an HTTP response finally came from, after redirects (a link
    ``a.html`` in a feed moved to ``https://new.example/news/feed.xml`` is
    ``https://new.example/news/a.html``). ``source`` and ``media_type`` come from a configured
    source record and override what the document implies.
    """

    content: bytes
    origin: str
    content_type: str | None = None
    source: SourceRef | None = None
    media_type: MediaType | None = None
    base_url: str | None = None


class SourceAdapter(Protocol):
    """A parser for one ingestion format (``jsonl``, ``rss``, ``ninjs``, ``jsonfeed``)."""

    format_name: str

    def parse(self, document: Document) -> Iterator[ParseOutcome]: ...
