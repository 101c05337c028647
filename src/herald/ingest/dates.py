"""Reading the dates feeds write, without storing a wrong one silently.

feedparser guesses at any date string it is given; a numeric date it does not know is read
wrongly rather than refused (``2020/1/10 14:33:00`` came back as 2020-11-01). So a feed date is
read here first: ISO 8601 and RFC 2822 as such; numeric ``Y/M/D`` (also ``-`` or ``.``) as year,
month, day; ``D/M/Y`` or ``M/D/Y`` only when one part is over 12 (otherwise the day/month order
is ambiguous); anything else as feedparser reads it. A date that is ambiguous or unreadable is a
problem the caller reports, and the entry falls back to its next date (updated, then the article
page's), else to the time it was first seen, flagged as an estimate.
"""

from __future__ import annotations

import calendar
import email.utils
import re
import time
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from herald.ingest.zones import UnknownTimeZone, with_named_zone

__all__ = ["EntryDate", "as_utc", "entry_date", "parse_published_date", "read_feed_date"]

_NUMERIC = re.compile(
    r"^(\d{1,4})[/.\-](\d{1,2})[/.\-](\d{1,4})"
    r"(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$",
    re.IGNORECASE,
)


class EntryDate:
    """The date an entry gets and what was wrong with the dates it gave (to report)."""

    __slots__ = ("problems", "value")

    def __init__(self, value: datetime | None, problems: list[str]) -> None:
        self.value = value
        self.problems = problems


def entry_date(entry: Mapping[str, Any]) -> EntryDate:
    """The first readable of the entry's published, updated and created dates."""
    problems: list[str] = []
    seen: set[str] = set()
    # Plain dict lookups: feedparser's own get() maps a missing "updated" to "published" (with a
    # deprecation warning).
    fields: Mapping[str, Any] = dict(entry.items()) if isinstance(entry, dict) else entry
    for key in ("published", "updated", "created"):
        raw = fields.get(key)
        parsed = fields.get(f"{key}_parsed")
        if not raw and not isinstance(parsed, time.struct_time):
            continue
        if raw and str(raw) in seen:
            continue  # feedparser offers an RSS pubDate as "updated" too
        seen.add(str(raw or ""))
        value, problem = read_feed_date(str(raw or ""), parsed)
        if problem:
            problems.append(f"{key} date {str(raw)[:60]!r} {problem}")
            continue
        if value is not None:
            return EntryDate(value, problems)
    return EntryDate(None, problems)


def read_feed_date(raw: str, parsed: object = None) -> tuple[datetime | None, str | None]:
    """``(date, None)``, or ``(None, why)`` for a date that must not be trusted."""
    text = raw.strip()
    if text:
        try:
            return parse_published_date(text), None
        except UnknownTimeZone:
            # feedparser would read the time as UTC: hours off, so not trusted.
            return None, "has an unknown or ambiguous time zone"
        except ValueError:
            pass
        numeric = _NUMERIC.match(text)
        if numeric:
            return _numeric(numeric)
    if isinstance(parsed, time.struct_time):
        try:
            return datetime.fromtimestamp(calendar.timegm(parsed), UTC), None
        except (OverflowError, ValueError, OSError):
            return None, "is out of range"
    if text:
        return None, "is not a date Herald can read"
    return None, None


def _numeric(match: re.Match[str]) -> tuple[datetime | None, str | None]:
    first, second, third = (int(match.group(i)) for i in (1, 2, 3))
    if len(match.group(1)) == 4:
        year, month, day = first, second, third
    elif len(match.group(3)) == 4:
        year = third
        if first > 12 >= second:
            day, month = first, second
        elif second > 12 >= first:
            month, day = first, second
        elif first == second:
            day = month = first
        else:
            return None, "is ambiguous (day/month order unknown)"
    else:
        return None, "is ambiguous (no four-digit year)"
    hour = int(match.group(4) or 0)
    minute = int(match.group(5) or 0)
    second_ = int(match.group(6) or 0)
    try:
        value = datetime(year, month, day, hour, minute, second_, tzinfo=UTC)
    except ValueError:
        return None, "is not a valid date"
    zone = (match.group(7) or "").upper()
    if zone and zone not in ("Z", "UTC", "GMT"):
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        offset = sign * (int(digits[:2]) * 60 + int(digits[2:]))
        try:
            value = datetime.fromtimestamp(value.timestamp() - offset * 60, UTC)
        except (OverflowError, ValueError, OSError):
            return None, "is out of range"
    return value, None


# --- ISO 8601 and RFC 2822, as the ingestion format and feeds write them ---------------------

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_published_date(value: str) -> datetime:
    """ISO 8601 (date or datetime) or RFC 2822 (feeds) to an aware UTC instant; naive = UTC.

    A zone abbreviation RFC 2822 does not define is read by :mod:`herald.ingest.zones`.
    Raises ValueError for anything else (:class:`~herald.ingest.zones.UnknownTimeZone` for a
    zone name that is no known offset).
    """
    text = value.strip()
    if not text:
        raise ValueError("empty date")
    if _DATE_ONLY.match(text):
        return datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
    parsed: datetime | None = None
    try:
        parsed = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            parsed = None
        if parsed is not None:
            parsed = with_named_zone(text, parsed)
    if parsed is None:
        raise ValueError(f"not a date: {text!r}")
    try:
        return as_utc(parsed)
    except OverflowError:
        # 0001-01-01T00:00+01:00 or 9999-12-31T23:59-01:00: no UTC instant exists.
        raise ValueError(f"date out of range: {text!r}") from None


def as_utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)
