"""Additions beyond the base interface: monitor previews and feeds, webhook replays and pauses."""

from __future__ import annotations

import datetime as dt

from herald_client.models._base import DateInput, HeraldModel, Meta, RequestModel
from herald_client.models._content import ContentSearchRequest, SearchResult
from herald_client.models._monitors import MonitorSearchParams

__all__ = [
    "MonitorFeed",
    "MonitorFeedRevoked",
    "MonitorPreview",
    "MonitorPreviewDay",
    "MonitorPreviewRequest",
    "MonitorStoreSearchRequest",
    "WebhookReplay",
    "WebhookReplayRequest",
]


class MonitorPreviewRequest(RequestModel):
    search: MonitorSearchParams
    days: int | None = None  # 1-30, default 7: today (UTC) and the days before
    explain: bool | None = None  # add ``match`` to each top item


class MonitorPreviewDay(HeraldModel):
    published_date: dt.date
    count: int  # what a dated job for this date would capture
    top: list[SearchResult]  # the best 10, best first


class MonitorPreview(HeraldModel):
    days: list[MonitorPreviewDay]  # newest date first
    total: int
    meta: Meta | None = None


class MonitorStoreSearchRequest(ContentSearchRequest):
    """Body of POST /v1/monitors/{id}/search: the content search and ``explain``."""

    explain: bool | None = None


class MonitorFeed(HeraldModel):
    """The feed's secret URL, shown only once: anyone holding it reads the feed."""

    monitor_id: str
    feed_url: str
    created_at: dt.datetime
    meta: Meta | None = None


class MonitorFeedRevoked(HeraldModel):
    monitor_id: str
    revoked: bool  # False when the monitor had no feed
    meta: Meta | None = None


class WebhookReplayRequest(RequestModel):
    start: DateInput | None = None
    end: DateInput | None = None


class WebhookReplay(HeraldModel):
    start_at: dt.datetime
    end_at: dt.datetime
    replayed: int  # at most 1,000 per call
    has_more: bool  # call again (one call per 30 seconds)
    meta: Meta | None = None
