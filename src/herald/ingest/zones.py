"""Time zones named by abbreviation in RFC 822/2822 dates (``Wed, 11 Jun 2003 04:00:00 CEST``).

RFC 822 names only the North American zones (``EST``, ``PDT``...), and Python's reader takes
any other name for "no offset", which would store a Berlin or Sydney date hours off as UTC.
Feeds from outside North America write their own zones, so the abbreviations below, which
name one offset wherever they are used, are read as that offset. An abbreviation that names
several (``IST``: India, Ireland, Israel) or none Herald knows is refused rather than guessed.
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
_TRAILING_NAME = re.compile(r"\d\s+([A-Za-z]{1,6})\s*$")


class UnknownTimeZone(ValueError):
    """A date whose zone abbreviation names no single offset Herald knows."""


def with_named_zone(text: str, parsed: datetime) -> datetime:
    """``parsed`` (Python's reading of ``text``, without offset) in the zone ``text`` names,
    unchanged when ``text`` names none; raises :class:`UnknownTimeZone` for a name that is no
    known zone."""
    match = _TRAILING_NAME.search(text)
    if parsed.tzinfo is not None or match is None:
        return parsed
    name = match.group(1).upper()
    if name in _RFC822_ZONES:
        return parsed
    offset = ZONE_OFFSETS.get(name)
    if offset is None:
        raise UnknownTimeZone(f"unknown or ambiguous time zone {match.group(1)!r} in {text!r}")
    return parsed.replace(tzinfo=timezone(timedelta(minutes=offset)))
