"""Telling the formats apart for ``--format auto``: the file name first, then the content.

``.jsonl``/``.ndjson`` are JSON Lines and ``.rss``/``.atom``/``.xml``/``.rdf`` feeds by name; any
other name is decided by content: XML is a feed; a JSON object with a ``jsonfeed.org`` version is
a JSON Feed; JSON whose first object has ninjs fields (in any version's spelling) is ninjs; other
JSON is JSON Lines. A document that is none of them (empty, OPML, plain text) raises
:class:`UnknownFormat`, one clear error for the whole file.
"""

from __future__ import annotations

import orjson

from herald.ingest.sources.jsonfeed import looks_like_json_feed
from herald.ingest.sources.ninjs import looks_like_ninjs

__all__ = ["FORMATS", "UnknownFormat", "detect_format"]

FORMATS = ("jsonl", "rss", "ninjs", "jsonfeed")


class UnknownFormat(ValueError):
    pass


def detect_format(content: bytes, name: str = "", content_type: str | None = None) -> str:
    head = content.lstrip(b"\xef\xbb\xbf \t\r\n")
    label = name or "the input"
    if not head:
        raise UnknownFormat(f"{label} is empty: no feed, ninjs, JSON Feed or JSON Lines")
    if head.startswith(b"<") and b"<opml" in head[:4096].lower():
        raise UnknownFormat(
            f"{label} is an OPML outline (a list of feeds), not a feed: add its feeds instead"
        )
    lowered = name.lower().removesuffix(".gz")
    if lowered.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if lowered.endswith((".rss", ".atom", ".xml", ".rdf")):
        return "rss"
    declared = (content_type or "").split(";")[0].strip().lower()
    if declared == "application/feed+json":
        return "jsonfeed"
    if declared.endswith(("xml", "rss", "atom")):
        return "rss"
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
        try:
            whole = orjson.loads(head)  # one (pretty-printed) object: a JSON Feed or ninjs item
        except orjson.JSONDecodeError:
            whole = None
        if looks_like_json_feed(whole):
            return "jsonfeed"
        first_line = head.split(b"\n", 1)[0]
        try:
            first = orjson.loads(first_line)
        except orjson.JSONDecodeError:
            first = whole
        return "ninjs" if looks_like_ninjs(first) else "jsonl"
    raise UnknownFormat(f"cannot tell the format of {label}; pass --format")
