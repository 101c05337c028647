"""JSON Lines in the ingestion format (one object per line).

A bad line is reported with its line number and reason and skipped; every other line is still
parsed. Blank lines are ignored. A JSON array of such objects (the admin API's other body form) is
accepted too, with entries numbered from 1. (The adapter is
:class:`herald.ingest.sources.jsonl.JsonLinesAdapter`; this module imports no other format, so
parser processes load little.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import orjson

from herald.ingest.model import ItemError, ParseOutcome
from herald.ingest.normalize import ItemRejected, item_from_mapping

__all__ = ["MAX_LINE_BYTES", "parse_json_array", "parse_json_lines"]

MAX_LINE_BYTES = 8 * 1024 * 1024


def parse_json_lines(lines: Iterable[bytes], *, first_line: int = 1) -> Iterator[ParseOutcome]:
    """Parse lines (bytes, with or without line endings), numbering them from ``first_line``."""
    for number, raw in enumerate(lines, start=first_line):
        line = raw.strip()
        if number == 1:
            line = line.removeprefix(b"\xef\xbb\xbf")
        if not line:
            continue
        location = f"line {number}"
        if len(line) > MAX_LINE_BYTES:
            yield ItemError(location, f"line longer than {MAX_LINE_BYTES} bytes", line=number)
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            yield ItemError(location, f"invalid JSON: {_json_reason(exc)}", line=number)
            continue
        yield _validated(obj, location, number)


def parse_json_array(content: bytes) -> Iterator[ParseOutcome]:
    try:
        entries = orjson.loads(content)
    except orjson.JSONDecodeError as exc:
        yield ItemError("document", f"invalid JSON: {_json_reason(exc)}")
        return
    if not isinstance(entries, list):
        yield ItemError("document", "expected a JSON array of items or JSON Lines")
        return
    for number, obj in enumerate(entries, start=1):
        yield _validated(obj, f"item {number}", number)


def _validated(obj: object, location: str, number: int) -> ParseOutcome:
    try:
        return item_from_mapping(obj)
    except ItemRejected as exc:
        ref = None
        if isinstance(obj, dict):
            ref_value = obj.get("url") or obj.get("external_id") or obj.get("title")
            ref = str(ref_value)[:200] if ref_value else None
        return ItemError(location, exc.reason, line=number, ref=ref)


def _json_reason(exc: orjson.JSONDecodeError) -> str:
    # orjson messages end with ": line 1 column 12 (char 11)"; keep the column only.
    message = str(exc)
    return message.replace("line 1 column", "column")
