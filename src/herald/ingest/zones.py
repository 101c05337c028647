"""Time zones named by abbreviation in RFC 822/2822 dates (``Wed, 11 Jun 2003 04:00:00 CEST``).

RFC 822 names only the North American zones (``EST``, ``PDT``...), and Python's reader takes
any other name for "no offset", which would store a Berlin or Sydney date hours off as UTC.
Feeds from outside North America write their own zones, so the abbreviations below, which
name one offset wherever they are used, are read as that offset. An abbreviation that names
several (``IST``: India, Ireland, Israel) or none Herald knows is refused rather than guessed.
Offsets Python's reader also leaves unread (``+02:00``, ``GMT+0200``, ``UTC+2``) are read here.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

__all__ = ["ZONE_OFFSETS", "UnknownTimeZone", "with_named_zone"]

# Offsets from UTC in minutes.
ZONE_OFFSETS: dict[str, int] = {
    "WET": 0,
    "WEST": 60,
    "BST": 60,
    "CET": 60,
    "CEST": 120,
    "MEZ": 60,
    "MESZ": 120,
    "EET": 120,
    "EEST": 180,
    "MSK": 180,
    "SAST": 120,
    "WIB": 420,
    "HKT": 480,
    "SGT": 480,
    "PHT": 480,
    "AWST": 480,
    "JST": 540,
    "KST": 540,
    "ACST": 570,
    "ACDT": 630,
    "AEST": 600,
    "AEDT": 660,
    "NZST": 720,
    "NZDT": 780,
    "HST": -600,
    "AKST": -540,
    "AKDT": -480,
    "NST": -210,
    "NDT": -150,
}
# The names RFC 822 itself defines; Python reads them.
_RFC822_ZONES = {"UT", "UTC", "GMT", "Z", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT"}
# What follows the time of day: a zone name, an offset (``+02:00``, ``GMT+0200``, ``UTC+2``),
# or nothing, then an optional comment in parentheses.
_AFTER_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?\s*(.*?)\s*(?:\([^()]*\))?\s*$")
_OFFSET = re.compile(r"^(?:(?:GMT|UTC|UT)\s*)?([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)


class UnknownTimeZone(ValueError):
    """A date whose zone abbreviation names no single offset Herald knows."""


def with_named_zone(text: str, parsed: datetime) -> datetime:
    """``parsed`` (Python's reading of ``text``, without offset) in the zone ``text`` names,
    unchanged when ``text`` names none; raises :class:`UnknownTimeZone` for a zone that is no
    known offset.

    Python also leaves an offset written ``+02:00``, ``GMT+0200`` or ``UTC+2`` unread (PHP's
    and JavaScript's date formats): read here.
    """
    match = _AFTER_TIME.search(text)
    if parsed.tzinfo is not None or match is None or not match.group(1):
        return parsed
    zone = match.group(1)
    offset = _OFFSET.match(zone)
    if offset:
        sign = 1 if offset.group(1) == "+" else -1
        minutes = int(offset.group(2)) * 60 + int(offset.group(3) or 0)
        if minutes < 24 * 60:
            return parsed.replace(tzinfo=timezone(timedelta(minutes=sign * minutes)))
    elif zone.upper() in _RFC822_ZONES:
        return parsed
    elif zone.upper() in ZONE_OFFSETS:
        return parsed.replace(tzinfo=timezone(timedelta(minutes=ZONE_OFFSETS[zone.upper()])))
    raise UnknownTimeZone(f"unknown or ambiguous time zone {zone!r} in {text!r}")
