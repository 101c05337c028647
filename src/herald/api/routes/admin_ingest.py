"""Operator endpoints of ingestion (admin keys only; member keys get 404).

- ``POST /v1/admin/content``: a JSON array or JSON Lines body of items in the ingestion
  format; the same validation as ``herald ingest``. Stored items are enriched and indexed by the
  worker; the response counts what happened, with the reason for every rejected entry.
- ``/v1/admin/sources``: list, add, show and remove polled sources, and poll one now.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from herald.api.deps import AdminDep, ClockDep, RuntimeDep, SessionsDep
from herald.api.schemas.common import Meta, RequestModel, ResponseModel, UtcTimestamp, current_meta
from herald.core.clock import Clock
from herald.db.session import SessionFactory
from herald.errors import FieldIssue, InvalidRequest
from herald.ingest.model import ItemError
from herald.ingest.pipeline import ingest_outcomes, parse_document
from herald.ingest.polling import PollStatus, request_poll
from herald.ingest.service import IngestReport
from herald.ingest.source_records import (
    MAX_INTERVAL_SECONDS,
    MAX_RETENTION_DAYS,
    MIN_INTERVAL_SECONDS,
    SOURCE_FORMATS,
    SourceView,
    add_source,
    find_source,
    list_sources,
    remove_source,
    set_retention,
)
from herald.ingest.sources import Document
from herald.ingest.sources.detect import UnknownFormat
from herald.ingest.urls import SOURCE_DOMAIN_PATTERN

router = APIRouter(tags=["operator"])

RETENTION_DOC = (
    "Days this source's items are kept, by publication time (0: forever); null follows "
    "HERALD_RETENTION_DAYS. Older items are deleted by the daily retention job."
)

# The body is read raw (it may be JSON Lines), so its schema is stated here for the document.
# Each item is checked on its own and a bad one is reported in `errors`, not refused with the
# request: so the schema of an item is any JSON value, described in docs/ingestion.md.
_ITEM_SCHEMA: dict[str, Any] = {
    "description": (
        "One item in the ingestion format (docs/ingestion.md): `media_type`, `title`, "
        "`published_date`, `source` {name, domain}, `url` or `external_id`, and `body` or "
        "`transcript`."
    ),
    "examples": [
        {
            "url": "https://example.com/a",
            "media_type": "news",
            "title": "A title",
            "published_date": "2026-11-25T10:00:00Z",
            "source": {"name": "Example", "domain": "example.com"},
            "body": "The article text.",
        }
    ],
}
INGEST_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "description": "An array of items (a single JSON value is read as JSON Lines).",
                "anyOf": [{"type": "array", "items": _ITEM_SCHEMA}, _ITEM_SCHEMA],
            }
        },
        "application/x-ndjson": {
            # No "type": the wire is text, whatever the lines hold.
            "schema": {
                "description": "One JSON item per line (the body as text).",
                "minLength": 1,
                # The body is read as bytes, whose strip() takes ASCII white space only.
                "pattern": "[^\\t-\\r ]",
            }
        },
    },
}


class RejectedEntry(ResponseModel):
    location: str = Field(
        description="`line N` (JSON Lines), `item N` (JSON array, ninjs, JSON Feed) or `entry N` "
        "/ `episode N` (feeds), from 1."
    )
    line: int | None
    reason: str
    ref: str | None = Field(description="The entry's url, external_id or title, when it had one.")


class IngestSummary(ResponseModel):
    accepted: int
    updated: int
    duplicates: int
    tombstoned: int = Field(
        description="Entries skipped because an operator deleted the item (a takedown): "
        "`herald content allow` lets them in again."
    )
    rejected: int
    content_ids: list[str] = Field(description="Ids of the accepted and updated items.")
    errors: list[RejectedEntry]
    meta: Meta


@router.post(
    "/v1/admin/content",
    response_model=IngestSummary,
    summary="Ingest content items (JSON array or JSON Lines)",
    description=(
        "Body: `application/json` (an array of items) or `application/x-ndjson` (one item per "
        "line), in the ingestion format. With `format`, a feed or wire document instead "
        "(`rss`, `ninjs`, `jsonfeed`, or `auto` to detect it); article pages and transcripts "
        "are never fetched here. Bad entries are reported and skipped; the others are stored "
        "and queued for enrichment."
    ),
    openapi_extra={"requestBody": INGEST_BODY},
)
async def post_content(
    request: Request,
    admin: AdminDep,
    sessions: SessionsDep,
    clock: ClockDep,
    format_name: Annotated[
        str,
        Query(
            alias="format",
            pattern="^(jsonl|auto|rss|ninjs|jsonfeed)$",
            description="`jsonl` (default: the ingestion format), `rss`, `ninjs`, `jsonfeed`, "
            "`auto`.",
        ),
    ] = "jsonl",
) -> IngestSummary:
    del admin
    body = await request.body()
    if not body.strip():
        raise InvalidRequest("the body is empty: send a JSON array or JSON Lines of items")
    content_type = request.headers.get("content-type")
    try:
        report = await run_in_threadpool(
            _ingest_body, body, sessions, clock, format_name, content_type
        )
    except UnknownFormat as exc:
        raise InvalidRequest(str(exc), details=[FieldIssue("body", str(exc))]) from None
    document_error = next((e for e in report.rejected if e.location == "document"), None)
    if document_error is not None:
        raise InvalidRequest(
            document_error.reason, details=[FieldIssue("body", document_error.reason)]
        )
    return IngestSummary(
        accepted=report.accepted,
        updated=report.updated,
        duplicates=report.duplicates,
        tombstoned=report.tombstoned,
        rejected=len(report.rejected),
        content_ids=report.changed_ids,
        errors=[_rejected(e) for e in report.rejected],
        meta=current_meta(),
    )


def _ingest_body(
    body: bytes, sessions: SessionFactory, clock: Clock, format_name: str, content_type: str | None
) -> IngestReport:
    document = Document(content=body, origin="request body", content_type=content_type)
    # No fetcher: a request never makes Herald fetch pages or transcripts.
    outcomes = parse_document(document, format_name=format_name, clock=clock)
    # One request, one transaction: a failed request stores nothing.
    return ingest_outcomes(sessions, outcomes, clock=clock, chunk_size=1_000_000)


def _rejected(error: ItemError) -> RejectedEntry:
    return RejectedEntry(
        location=error.location, line=error.line, reason=error.reason, ref=error.ref
    )


class SourceIn(RequestModel):
    url: str = Field(
        description="The feed URL (http or https).",
        json_schema_extra={"format": "uri", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+"},
    )
    media_type: str = Field(
        description="`news`, `wire` or `podcast`.",
        json_schema_extra={"enum": ["news", "wire", "podcast"]},
    )
    interval_seconds: int | None = Field(
        default=None,
        description="Polling interval, 60 s to 7 days (default 900).",
        json_schema_extra={"minimum": MIN_INTERVAL_SECONDS, "maximum": MAX_INTERVAL_SECONDS},
    )
    format: str = Field(
        default="rss",
        description="`rss` (RSS/Atom/podcast), `ninjs`, `jsonl` or `jsonfeed` (JSON Feed).",
        json_schema_extra={"enum": list(SOURCE_FORMATS)},
    )
    name: str | None = Field(
        default=None, description="Source name for items (default: the feed's)."
    )
    domain: str | None = Field(
        default=None,
        description=(
            "Source domain for items (default: each link's): a host name or a URL of it "
            "(`www.bbc.co.uk`, `https://bbc.co.uk/news`, `bücher.de`), stored as its registrable "
            "domain in lower case (`bbc.co.uk`, `xn--bcher-kva.de`); a public suffix such as "
            "`co.uk`, or a host name longer than 253 characters, is refused."
        ),
        json_schema_extra={"pattern": SOURCE_DOMAIN_PATTERN},
    )
    retention_days: int | None = Field(
        default=None,
        description=RETENTION_DOC,
        json_schema_extra={"minimum": 0, "maximum": MAX_RETENTION_DAYS},
    )


class SourcePatch(RequestModel):
    retention_days: int | None = Field(
        description=RETENTION_DOC,
        json_schema_extra={"minimum": 0, "maximum": MAX_RETENTION_DAYS},
    )


class SourceOut(ResponseModel):
    id: str
    url: str = Field(description="The feed URL as configured: the source's identity.")
    fetch_url: str = Field(
        description="Where the feed is fetched from: `url`, or the address it moved to when "
        "every redirect of a successful poll was permanent (301 or 308)."
    )
    media_type: str
    format: str
    name: str | None
    domain: str | None
    interval_seconds: int
    enabled: bool
    next_poll_at: UtcTimestamp = Field(
        description="When it is polled next: its interval after the last poll; after two or "
        "more failures in a row, the interval doubled with each further failure, up to a "
        "day (or the interval when longer); later still when the server asked with Retry-After."
    )
    last_polled_at: UtcTimestamp | None
    last_success_at: UtcTimestamp | None
    last_error: str | None
    last_error_at: UtcTimestamp | None
    consecutive_failures: int = Field(
        description="Failed polls since the last successful one (0 when the last poll worked)."
    )
    last_report: dict[str, Any] | None
    retention_days: int | None = Field(description=RETENTION_DOC)
    created_at: UtcTimestamp


class SourceResponse(ResponseModel):
    source: SourceOut
    meta: Meta


class SourceList(ResponseModel):
    sources: list[SourceOut]
    meta: Meta


def _out(view: SourceView) -> SourceOut:
    return SourceOut(**{name: getattr(view, name) for name in SourceOut.model_fields})


@router.get("/v1/admin/sources", response_model=SourceList, summary="List polled sources")
def get_sources(admin: AdminDep, sessions: SessionsDep) -> SourceList:
    del admin
    with sessions.read() as session:
        views = list_sources(session)
    return SourceList(sources=[_out(v) for v in views], meta=current_meta())


@router.post(
    "/v1/admin/sources",
    response_model=SourceResponse,
    status_code=201,
    summary="Add a polled source",
)
def post_source(body: SourceIn, admin: AdminDep, runtime: RuntimeDep) -> SourceResponse:
    del admin
    with runtime.sessions.write() as session:
        view = add_source(
            session,
            url=body.url,
            media_type=body.media_type,
            clock=runtime.clock,
            interval_seconds=body.interval_seconds or runtime.settings.source_poll_seconds,
            format_name=body.format,
            name=body.name,
            domain=body.domain,
            retention_days=body.retention_days,
        )
    return SourceResponse(source=_out(view), meta=current_meta())


@router.get("/v1/admin/sources/{source_id}", response_model=SourceResponse, summary="Show a source")
def get_source(source_id: str, admin: AdminDep, sessions: SessionsDep) -> SourceResponse:
    del admin
    with sessions.read() as session:
        view = SourceView.of(find_source(session, source_id))
    return SourceResponse(source=_out(view), meta=current_meta())


@router.patch(
    "/v1/admin/sources/{source_id}",
    response_model=SourceResponse,
    summary="Change a source's retention",
)
def patch_source(
    source_id: str, body: SourcePatch, admin: AdminDep, runtime: RuntimeDep
) -> SourceResponse:
    del admin
    with runtime.sessions.write() as session:
        view = set_retention(session, source_id, body.retention_days, clock=runtime.clock)
    return SourceResponse(source=_out(view), meta=current_meta())


@router.delete(
    "/v1/admin/sources/{source_id}",
    response_model=SourceResponse,
    summary="Remove a source (its items stay)",
)
def delete_source(source_id: str, admin: AdminDep, sessions: SessionsDep) -> SourceResponse:
    del admin
    with sessions.write() as session:
        view = remove_source(session, source_id)
    return SourceResponse(source=_out(view), meta=current_meta())


class SourcePollResponse(ResponseModel):
    poll: PollStatus = Field(
        description="`queued`: the source's poll job was queued now; `already_queued` or "
        "`already_running`: a poll of it was waiting or running, and nothing more was queued.",
    )
    source: SourceOut
    meta: Meta


@router.post(
    "/v1/admin/sources/{source_id}/poll",
    response_model=SourcePollResponse,
    status_code=202,
    summary="Poll a source now",
)
def post_source_poll(source_id: str, admin: AdminDep, runtime: RuntimeDep) -> SourcePollResponse:
    """Queue the source's poll job now instead of at its next slot. Asking again while that
    poll waits or runs queues nothing more. The poll's outcome shows on the source
    (`last_polled_at`, `last_error`, `last_report`)."""
    del admin
    with runtime.sessions.write() as session:
        asked = request_poll(session, source_id, clock=runtime.clock)
    return SourcePollResponse(
        poll=asked.poll,
        source=_out(asked.source),
        meta=current_meta(),
    )
