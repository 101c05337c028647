"""What the fetcher reads of a response's headers: the media type and charset of its
``Content-Type``, and the wait its ``Retry-After`` asks for."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def charset_of(header: str | None) -> str | None:
    """The ``charset`` parameter of a Content-Type header (``text/xml; charset="koi8-r"``)."""
    for param in (header or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'").lower() or None
    return None


def retry_after(header: str | None, now: datetime) -> float | None:
    """The seconds a ``Retry-After`` header asks for: delta-seconds (``120``) or an HTTP date
    (``Wed, 21 Oct 2026 07:28:00 GMT``); None when absent or unreadable, 0 for a past date."""
    value = (header or "").strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # "-0000": UTC, by RFC 5322
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - now).total_seconds())


def media_type_of(header: str | None) -> str | None:
    """The media type of a Content-Type header, lower case, without its parameters."""
    if not header:
        return None
    return header.split(";", 1)[0].strip().lower() or None
