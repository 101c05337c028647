"""Telling the formats apart for ``--format auto``: the file name first, then the content."""

from __future__ import annotations

import orjson

from herald.ingest.sources.ninjs import looks_like_ninjs

__all__ = ["FORMATS", "UnknownFormat", "detect_format"]

FORMATS = ("jsonl", "rss", "ninjs")


class UnknownFormat(ValueError):
    pass


def detect_format(content: bytes, name: str = "", content_type: str | None = None) -> str:
    lowered = name.lower().removesuffix(".gz")
    if lowered.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if lowered.endswith((".rss", ".atom", ".xml", ".rdf")):
        return "rss"
    declared = (content_type or "").split(";")[0].strip().lower()
    if declared.endswith(("xml", "rss", "atom")):
        return "rss"
    head = content.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        return "rss"
    if head.startswith(b"["):
        try:
            data = orjson.loads(head)
        except orjson.JSONDecodeError:
            data = None
        first = data[0] if isinstance(data, list) and data else None
        return "ninjs" if looks_like_ninjs(first) else "jsonl"
    if head.startswith(b"{"):
        first_line = head.split(b"\n", 1)[0]
        try:
            first = orjson.loads(first_line)
        except orjson.JSONDecodeError:
            try:
                first = orjson.loads(head)  # one pretty-printed object
            except orjson.JSONDecodeError:
                first = None
        return "ninjs" if looks_like_ninjs(first) else "jsonl"
    raise UnknownFormat(f"cannot tell the format of {name or 'the input'}; pass --format")
