"""Polling sources: the schedule (which sources are due) and one poll (fetch, parse, store).

A poll fetches the feed with the validators of its last good response (conditional GET: a 304
stores nothing), parses it outside any transaction (article pages and transcripts are fetched
then), and stores items, the source's new state and the job's completion in one transaction,
with the source's row locked: a source removed while its poll ran gets none of its items.

A failure (network, HTTP status, size, content type, unreadable document, or an unexpected
error storing the items) is recorded as the source's ``last_error``; the source keeps its
items, and consecutive failures move its next poll out
(:func:`~herald.ingest.source_records.failure_backoff`); a 429 or 503 with ``Retry-After``
moves it to no earlier than that (at most ``RETRY_AFTER_MAX``) when that is later.

A feed fetched through permanent redirects only (301/308) is fetched from their target from
then on (the source's ``fetch_url``); its configured ``url`` stays its identity (what podcast
ids and the source's domain are derived from).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from sqlalchemy.orm import Session

from herald.content.tombstones import tombstoned_ids
from herald.core.clock import Clock
from herald.core.storable import printable
from herald.db.models.ingest import Source
from herald.db.session import SessionFactory
from herald.ingest import repository
from herald.ingest.fetch import FEED_TYPES, JSON_TYPES, Fetcher, FetchError, FetchResult
from herald.ingest.model import IncomingItem, ItemError, KnownEntry, MediaType, ParseOutcome
from herald.ingest.page_retries import may_fetch_again
from herald.ingest.pipeline import parse_document
from herald.ingest.service import IngestReport, store_items
from herald.ingest.source_records import (
    SourceView,
    configured_source_ref,
    failure_backoff,
    find_source,
    moved_fetch_url,
    schedule_after,
    tries_configured_url,
)
from herald.ingest.sources import Document
from herald.jobs.claimed import LeaseLost
from herald.jobs.queue import enqueue, key_status

__all__ = [
    "POLL_JOB",
    "PollOutcome",
    "PollRequest",
    "poll_source",
    "request_poll",
    "schedule_due_polls",
]

log = logging.getLogger(__name__)

POLL_JOB = "ingest.poll_source"
# The longest pause a feed server's Retry-After (on a 429 or 503) puts before the next poll.
RETRY_AFTER_MAX = timedelta(days=1)
_ACCEPT = {
    "rss": FEED_TYPES,
    "ninjs": JSON_TYPES,
    "jsonfeed": ("application/feed+json", *JSON_TYPES),
    "jsonl": (*JSON_TYPES, "application/x-ndjson", "application/jsonl", "text/plain"),
}


@dataclass(frozen=True, slots=True)
class PollOutcome:
    status: str  # "stored", "not_modified", "failed", "gone"
    report: IngestReport | None = None
    error: str | None = None


PollStatus = Literal["queued", "already_queued", "already_running"]


@dataclass(frozen=True, slots=True)
class PollRequest:
    """What asking for a poll now did: ``queued``, or nothing because a poll of the source is
    ``already_queued`` or ``already_running``."""

    poll: PollStatus
    source: SourceView


def schedule_due_polls(session: Session, *, clock: Clock) -> list[str]:
    """Enqueue a poll for every due source and move it to its next slot (same transaction)."""
    now = clock.now()
    enqueued = []
    for source in repository.claim_due_sources(session, now=now):
        _enqueue_poll(session, source, clock)
        enqueued.append(source.id)
    return enqueued


def request_poll(session: Session, id_or_url: str, *, clock: Clock) -> PollRequest:
    """Queue the source's poll job now, the one the schedule queues, unless a poll of it is
    queued or running already (asking twice polls once). Its next scheduled poll moves to an
    interval after now, as when the schedule queues it."""
    source = find_source(session, id_or_url)
    source = repository.get_source(session, source.id, lock=True) or source
    pending = key_status(session, _poll_key(source.id))
    if pending is not None:
        said: PollStatus = "already_running" if pending == "running" else "already_queued"
        return PollRequest(said, SourceView.of(source))
    _enqueue_poll(session, source, clock)
    session.flush()
    return PollRequest("queued", SourceView.of(source))


def pending_poll(session: Session, source_id: str) -> str | None:
    """``"running"`` while a poll of the source runs, ``"queued"`` while one waits, else None."""
    return key_status(session, _poll_key(source_id))


def _poll_key(source_id: str) -> str:
    return f"poll:{source_id}"


def _enqueue_poll(session: Session, source: Source, clock: Clock) -> None:
    now = clock.now()
    source.next_poll_at = schedule_after(source, now)
    source.updated_at = now
    enqueue(
        session, POLL_JOB, {"source_id": source.id}, clock=clock, unique_key=_poll_key(source.id)
    )


def poll_source(
    sessions: SessionFactory,
    source_id: str,
    *,
    clock: Clock,
    fetcher: Fetcher,
    finish: Callable[[Session], None] = lambda session: None,
) -> PollOutcome:
    """Poll one source now. ``finish`` runs inside the transaction that stores the results (the
    job queue marks the job done there)."""
    with sessions.read() as session:
        source = repository.get_source(session, source_id)
    if source is None:  # removed since the poll was scheduled
        with sessions.write() as session:
            finish(session)
        return PollOutcome("gone")
    # The configured URL names the feed (podcast ids, the source domain); it is fetched from
    # where it moved for good, if it did.
    url, fetch_url = source.url, source.fetch_url or source.url
    etag, modified = source.etag, source.last_modified
    # Failing where it moved: every so often its configured address is asked instead (without
    # the validators of the other address), and fetched from again if it answers with a feed.
    back_home = fetch_url != url and tries_configured_url(source.consecutive_failures)
    moved = fetch_url
    if back_home:
        fetch_url, etag, modified = url, None, None
    format_name, media_type = source.format, source.media_type
    configured = configured_source_ref(source)

    try:
        result = fetcher.fetch(
            fetch_url,
            accept=_ACCEPT.get(format_name, FEED_TYPES),
            etag=etag,
            last_modified=modified,
        )
    except FetchError as exc:
        reason = f"{exc.kind}: {exc.message}"
        if back_home:
            reason = f"at the configured {url} (tried again after failures at {moved}): "
            reason += f"{exc.kind}: {exc.message}"
        if exc.http_status == 410:
            reason += " (the server reports the feed gone for good; remove the source if so)"
        return _record_failure(sessions, source_id, reason, clock, finish, exc.retry_after)
    if result.not_modified:
        with sessions.write() as session:
            _record_success(session, source_id, result, clock, IngestReport(), back_home)
            finish(session)
        return PollOutcome("not_modified")

    def is_known(content_id: str) -> bool:
        # Stored, or deleted by an operator: either way its article page is not fetched, unless
        # a stored teaser's page failed and may be tried again (herald.ingest.page_retries).
        with sessions.read() as session:
            if tombstoned_ids(session, [content_id]):
                return True
            stored = repository.page_fetch_state(session, content_id)
        return stored is not None and not may_fetch_again(*stored, clock.now())

    document = Document(
        content=result.content,
        origin=url,
        content_type=(
            f"{result.content_type}; charset={result.charset}"
            if result.content_type and result.charset
            else result.content_type
        ),
        source=configured,
        media_type=_media_type(media_type),
        base_url=result.url,  # after redirects: what the feed's relative links are relative to
    )
    try:
        outcomes: list[ParseOutcome] = list(
            parse_document(
                document, format_name=format_name, clock=clock, fetcher=fetcher, is_known=is_known
            )
        )
    except Exception as exc:  # noqa: BLE001 - a document that breaks a parser is the source's error
        reason = f"parse: {exc.__class__.__name__}: {exc}"
        return _record_failure(sessions, source_id, reason, clock, finish)
    fatal = next(
        (o for o in outcomes if isinstance(o, ItemError) and o.location == "document"), None
    )
    if fatal is not None:
        return _record_failure(sessions, source_id, f"document: {fatal.reason}", clock, finish)
    report = IngestReport()
    items = [o for o in outcomes if isinstance(o, IncomingItem)]
    known = [o.content_id for o in outcomes if isinstance(o, KnownEntry)]
    taken_down: set[str] = set()
    if known:  # entries skipped unfetched: stored ones are duplicates, deleted ones tombstoned
        with sessions.read() as session:
            taken_down = tombstoned_ids(session, known)
    for outcome in outcomes:
        if isinstance(outcome, KnownEntry) and outcome.content_id in taken_down:
            report.tombstoned += 1
        elif not isinstance(outcome, IncomingItem):
            report.note(outcome)
    try:
        with sessions.write() as session:
            if repository.get_source(session, source_id, lock=True) is None:
                finish(session)  # removed while it was fetched: what it listed is not stored
                return PollOutcome("gone")
            store_items(session, items, clock=clock, source_id=source_id, report=report)
            _record_success(session, source_id, result, clock, report, back_home)
            finish(session)
    except LeaseLost:
        raise  # the job is another worker's now: nothing about the source to say
    except Exception as exc:
        # Not the feed's fault: shown on the source (briefly; the log has the details) and
        # raised, so the job queue tries the poll again.
        log.exception("storing the items of a poll of source %s failed", source_id)
        reason = f"store: storing this poll's items failed ({exc.__class__.__name__}); retried"
        try:
            _record_failure(sessions, source_id, reason, clock, lambda session: None)
        except Exception:  # the database may be what failed: the first error is raised
            log.exception("recording the failure on source %s failed too", source_id)
        raise
    return PollOutcome("stored", report=report)


def _media_type(value: str) -> MediaType:
    return "wire" if value == "wire" else "podcast" if value == "podcast" else "news"


def _record_success(
    session: Session,
    source_id: str,
    result: FetchResult,
    clock: Clock,
    report: IngestReport,
    back_home: bool = False,
) -> None:
    source = repository.get_source(session, source_id)
    if source is None:
        return
    now = clock.now()
    source.last_polled_at = now
    source.last_success_at = now
    source.last_error = None
    source.last_error_at = None
    source.consecutive_failures = 0
    source.updated_at = now
    if result.moved_to is not None:  # every redirect was permanent: fetch there from now on
        source.fetch_url = moved_fetch_url(source, result.moved_to)
    elif back_home:  # its configured address answered (directly, or by a temporary hop)
        source.fetch_url = None
    if not result.not_modified:
        # Keep validators only from a full response: they describe what we stored.
        source.etag = result.etag
        source.last_modified = result.last_modified
        source.items_seen += report.accepted
        source.last_report = report.summary(max_messages=10) | {"http_status": result.status}
    else:
        source.last_report = {"http_status": 304}


def _record_failure(
    sessions: SessionFactory,
    source_id: str,
    message: str,
    clock: Clock,
    finish: Callable[[Session], None],
    retry_after: float | None = None,
) -> PollOutcome:
    with sessions.write() as session:
        source = repository.get_source(session, source_id)
        if source is not None:
            now = clock.now()
            source.consecutive_failures += 1
            pause = timedelta(0)
            if source.consecutive_failures > 1:  # a first failure keeps the schedule
                pause = failure_backoff(source.interval_seconds, source.consecutive_failures)
            if retry_after is not None:  # the server's 429/503 asked for a pause
                asked = timedelta(seconds=min(retry_after, RETRY_AFTER_MAX.total_seconds()))
                pause = max(pause, asked)
            source.next_poll_at = max(source.next_poll_at, now + pause)
            source.last_polled_at = now
            source.last_error = printable(message)[:2000]
            source.last_error_at = now
            source.updated_at = now
        finish(session)
    return PollOutcome("failed", error=message)
