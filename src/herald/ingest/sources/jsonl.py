"""The JSON Lines adapter (one object per line, or a JSON array of such objects); the parsing
itself lives in :mod:`herald.ingest.jsonlines`, which parser processes import without the other
adapters."""

from __future__ import annotations

from collections.abc import Iterator

from herald.ingest.jsonlines import parse_json_array, parse_json_lines
from herald.ingest.model import ParseOutcome
from herald.ingest.sources.base import Document

__all__ = ["JsonLinesAdapter", "parse_json_array", "parse_json_lines"]


class JsonLinesAdapter:
    format_name = "jsonl"

    def parse(self, document: Document) -> Iterator[ParseOutcome]:
        content = document.content.lstrip(b"\xef\xbb\xbf \t\r\n")
        if content.startswith(b"["):
            return parse_json_array(content)
        return parse_json_lines(content.splitlines())
