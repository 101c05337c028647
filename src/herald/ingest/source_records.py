"""Sources as records: feeds Herald polls on an interval (``herald sources``, /v1/admin/sources).

A source is identified by its canonical feed URL (adding the same feed twice is refused). Its
items keep existing when it is removed: content is shared and may have come from elsewhere too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import stable_id
from herald.db.models.ingest import Source
from herald.errors import FieldIssue, InvalidRequest, NotFound
from herald.ingest import repository
from herald.ingest.model import MEDIA_TYPES, SourceRef
from herald.ingest.urls import (
    InvalidUrl,
    canonical_forms,
    canonical_url,
    host_of,
    normalise_domain,
    registrable_domain,
)

__all__ = [
    "SOURCE_FORMATS",
    "SourceView",
    "add_source",
    "configured_source_ref",
    "failure_backoff",
    "find_source",
    "list_sources",
    "moved_fetch_url",
    "parse_interval",
    "remove_source",
    "tries_configured_url",
]

SOURCE_FORMATS = ("rss", "ninjs", "jsonl", "jsonfeed")
# The columns' limits: PostgreSQL would refuse longer values (and SQLite would keep them).
_NAME_MAX = 300  # Source.name
_URL_MAX = 2048  # Source.canonical_url
MIN_INTERVAL_SECONDS = 60
MAX_INTERVAL_SECONDS = 7 * 86400
# The longest pause consecutive failures put between two polls of a source (unless its own
# interval is longer: a failing source is never polled more often than a working one).
BACKOFF_MAX = timedelta(days=1)
# A feed that moved for good (its ``fetch_url``) and then fails there: after every this many
# failures in a row, one poll asks its configured address instead.
MOVED_FAILURES_BEFORE_HOME = 3


@dataclass(frozen=True, slots=True)
class SourceView:
    """A source as the CLI and the admin API show it."""

    id: str
    url: str
    fetch_url: str  # where the feed is fetched from: ``url``, or where it moved for good
    media_type: str
    format: str
    name: str | None
    domain: str | None
    interval_seconds: int
    enabled: bool
    next_poll_at: datetime
    last_polled_at: datetime | None
    last_success_at: datetime | None
    last_error: str | None
    last_error_at: datetime | None
    consecutive_failures: int
    last_report: dict[str, Any] | None
    retention_days: int | None
    created_at: datetime

    @classmethod
    def of(cls, source: Source) -> SourceView:
        return cls(
            id=source.id,
            url=source.url,
            fetch_url=source.fetch_url or source.url,
            media_type=source.media_type,
            format=source.format,
            name=source.name,
            domain=source.domain,
            interval_seconds=source.interval_seconds,
            enabled=source.enabled,
            next_poll_at=source.next_poll_at,
            last_polled_at=source.last_polled_at,
            last_success_at=source.last_success_at,
            last_error=source.last_error,
            last_error_at=source.last_error_at,
            consecutive_failures=source.consecutive_failures,
            last_report=source.last_report,
            retention_days=source.retention_days,
            created_at=source.created_at,
        )


_INTERVAL = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$", re.IGNORECASE)


def parse_interval(value: str | int) -> int:
    """``900``, ``90s``, ``15m``, ``2h``, ``1d`` -> seconds (60 s to 7 days)."""
    if isinstance(value, int):
        seconds = value
    else:
        match = _INTERVAL.match(value)
        if not match:
            raise InvalidRequest(
                "interval must be seconds or a number with s, m, h or d (e.g. 15m)",
                details=[FieldIssue("interval_seconds", f"not an interval: {value!r}")],
            )
        unit = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2).lower()]
        seconds = int(match.group(1)) * unit
    if not MIN_INTERVAL_SECONDS <= seconds <= MAX_INTERVAL_SECONDS:
        raise InvalidRequest(
            f"interval must be between {MIN_INTERVAL_SECONDS} s and 7 days",
            details=[FieldIssue("interval_seconds", f"{seconds} s is out of range")],
        )
    return seconds


def add_source(
    session: Session,
    *,
    url: str,
    media_type: str,
    clock: Clock,
    interval_seconds: int,
    format_name: str = "rss",
    name: str | None = None,
    domain: str | None = None,
    retention_days: int | None = None,
) -> SourceView:
    check_retention_days(retention_days)
    try:
        canonical = canonical_url(url)
    except InvalidUrl as exc:
        raise InvalidRequest(str(exc), details=[FieldIssue("url", str(exc))]) from None
    if media_type not in MEDIA_TYPES:
        raise InvalidRequest(
            "media_type must be one of news, wire, podcast",
            details=[FieldIssue("media_type", f"unknown media type {media_type!r}")],
        )
    if format_name not in SOURCE_FORMATS:
        raise InvalidRequest(
            f"format must be one of {', '.join(SOURCE_FORMATS)}",
            details=[FieldIssue("format", f"unknown format {format_name!r}")],
        )
    if domain is not None:
        try:
            domain = normalise_domain(domain)
        except InvalidUrl as exc:
            raise InvalidRequest(str(exc), details=[FieldIssue("domain", str(exc))]) from None
    name = name.strip() if name and name.strip() else None
    if name is not None and len(name) > _NAME_MAX:
        raise InvalidRequest(
            f"name is longer than {_NAME_MAX} characters",
            details=[FieldIssue("name", f"at most {_NAME_MAX} characters")],
        )
    if len(canonical) > _URL_MAX:
        raise InvalidRequest(
            f"url is longer than {_URL_MAX} characters",
            details=[FieldIssue("url", f"at most {_URL_MAX} characters")],
        )
    interval = parse_interval(interval_seconds)
    # A feed added by an earlier release is stored under its canonical form of then.
    if repository.source_by_canonical_urls(session, canonical_forms(url)) is not None:
        raise _already_a_source(canonical)
    moved_here = _source_moved_to(session, canonical)
    if moved_here is not None:
        source_id, fetch_url = moved_here
        raise InvalidRequest(
            "this feed is already a source: one whose feed moved here",
            details=[FieldIssue("url", f"source {source_id} is fetched from {fetch_url}")],
        )
    now = clock.now()
    source = Source(
        id=stable_id("src", canonical),
        url=url.strip(),
        canonical_url=canonical,
        media_type=media_type,
        format=format_name,
        name=name,
        domain=domain,
        interval_seconds=interval,
        enabled=True,
        next_poll_at=now,  # first poll as soon as a worker looks
        consecutive_failures=0,
        items_seen=0,
        retention_days=retention_days,
        created_at=now,
        updated_at=now,
    )
    if not repository.add_source(session, source):
        raise _already_a_source(canonical)  # a concurrent request added it a moment ago
    return SourceView.of(source)


def _already_a_source(canonical: str) -> InvalidRequest:
    return InvalidRequest(
        "this feed is already a source",
        details=[FieldIssue("url", f"{canonical} is already configured")],
    )


def _source_moved_to(session: Session, canonical: str) -> tuple[str, str] | None:
    """``(id, fetch_url)`` of a source whose feed moved (permanent redirects) to the feed
    ``canonical``, if one did."""
    for source_id, fetch_url in repository.moved_sources(session):
        try:
            if canonical_url(fetch_url) == canonical:
                return source_id, fetch_url
        except InvalidUrl:
            continue
    return None


def list_sources(session: Session) -> list[SourceView]:
    return [SourceView.of(source) for source in repository.list_sources(session)]


def find_source(session: Session, id_or_url: str) -> Source:
    """The source with this id, or whose feed is at this URL: its configured ``url`` or, for a
    feed that moved for good, the ``fetch_url`` it is fetched from now."""
    source = repository.get_source(session, id_or_url.strip())
    if source is None:
        try:
            forms = canonical_forms(id_or_url)
            source = repository.source_by_canonical_urls(session, forms)
            if source is None and (moved := _source_moved_to(session, canonical_url(id_or_url))):
                source = repository.get_source(session, moved[0])
        except InvalidUrl:
            source = None
    if source is None:
        raise NotFound(f"no source {id_or_url!r}")
    return source


MAX_RETENTION_DAYS = 36_500


def check_retention_days(days: int | None) -> None:
    if days is not None and not 0 <= days <= MAX_RETENTION_DAYS:
        raise InvalidRequest(
            f"retention_days must be 0 (keep forever) to {MAX_RETENTION_DAYS}, or null",
            details=[FieldIssue("retention_days", f"0 to {MAX_RETENTION_DAYS}, or null")],
        )


def set_retention(
    session: Session, id_or_url: str, retention_days: int | None, *, clock: Clock
) -> SourceView:
    """Set how long the source's items are kept (None: as HERALD_RETENTION_DAYS; 0: forever)."""
    check_retention_days(retention_days)
    source = find_source(session, id_or_url)
    source.retention_days = retention_days
    source.updated_at = clock.now()
    session.flush()
    return SourceView.of(source)


def remove_source(session: Session, id_or_url: str) -> SourceView:
    source = find_source(session, id_or_url)
    view = SourceView.of(source)
    repository.delete_source(session, source.id)
    return view


def configured_source_ref(source: Source) -> SourceRef | None:
    """The name/domain an operator set for a source (overriding what the feed says), if any."""
    if not source.name and not source.domain:
        return None
    domain = source.domain or registrable_domain(host_of(source.url)) or host_of(source.url)
    return SourceRef(source.name or domain, domain)


def moved_fetch_url(source: Source, moved_to: str) -> str | None:
    """The ``fetch_url`` of a source whose feed was fetched through permanent redirects only,
    ending at ``moved_to``: None when that is its configured URL again; an address longer than
    a feed URL may be keeps the one it had."""
    if len(moved_to) > _URL_MAX:
        return source.fetch_url
    return None if moved_to == source.url else moved_to


def tries_configured_url(consecutive_failures: int) -> bool:
    """Whether the next poll of a source fetched from where its feed moved asks its configured
    ``url`` instead: after every :data:`MOVED_FAILURES_BEFORE_HOME` failures in a row (the old
    address may work again while the new one is gone). It becomes the address fetched from
    again when it answers with a feed (directly or by temporary redirects; permanent ones to
    another address make that the fetch address)."""
    return consecutive_failures > 0 and consecutive_failures % MOVED_FAILURES_BEFORE_HOME == 0


def schedule_after(source: Source, now: datetime) -> datetime:
    return now + timedelta(seconds=source.interval_seconds)


def failure_backoff(interval_seconds: int, failures: int) -> timedelta:
    """The least time from a failed poll to the next, after ``failures`` in a row.

    The interval after the first failure (the source keeps its schedule), then doubling with
    each further failure: 2, 4, 8... times the interval, at most :data:`BACKOFF_MAX` (or the
    interval, when that is longer). The first successful poll resets the count."""
    interval = timedelta(seconds=interval_seconds)
    cap = max(interval, BACKOFF_MAX)
    doublings = max(0, failures - 1)
    # 2**doublings past the cap is the cap: no need to compute a number of years.
    wait = cap if doublings >= 32 else interval * (1 << doublings)
    return min(wait, cap)
