"""Request and response shapes of the monitor additions: preview and Atom feeds."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from herald.api.schemas.common import Meta, RequestModel, ResponseModel, UtcTimestamp
from herald.api.schemas.content import SearchResult
from herald.api.schemas.monitors import SEARCH_DOC, SavedSearchIn
from herald.monitors.preview import DEFAULT_PREVIEW_DAYS, MAX_PREVIEW_DAYS, TOP_PER_DAY


class PreviewRequest(RequestModel):
    search: SavedSearchIn = Field(description=SEARCH_DOC)
    days: int | None = Field(
        default=None,
        description=(
            f"Past UTC days to preview, today included (default {DEFAULT_PREVIEW_DAYS}, "
            f"at most {MAX_PREVIEW_DAYS})."
        ),
        json_schema_extra={"minimum": 1, "maximum": MAX_PREVIEW_DAYS},
    )
    explain: bool = Field(default=False, description="Add `match` evidence to each top item.")


class PreviewDayOut(ResponseModel):
    published_date: date = Field(description="The UTC published date.")
    count: int = Field(description="How many items a dated job for this date would capture.")
    top: list[SearchResult] = Field(
        description=f"The best {TOP_PER_DAY} of them with their scores, best first."
    )


class PreviewResponse(ResponseModel):
    days: list[PreviewDayOut] = Field(description="Newest date first.")
    total: int = Field(description="The sum of the daily counts.")
    meta: Meta


class FeedCreated(ResponseModel):
    monitor_id: str
    feed_url: str = Field(
        description="The feed's secret URL, shown only now: anyone holding it can read the feed."
    )
    created_at: UtcTimestamp
    meta: Meta


class FeedRevoked(ResponseModel):
    monitor_id: str
    revoked: bool = Field(description="False when the monitor had no feed.")
    meta: Meta
