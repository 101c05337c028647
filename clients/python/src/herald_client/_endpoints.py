"""Every operation of the interface as data: method, path, request and response models.

The resources call these; the drift test in tests/client walks ``ENDPOINTS`` and compares each
with the server's OpenAPI document, so the client cannot silently disagree with the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from herald_client.models import (
    BackfillLedger,
    BackfillRequest,
    BackfillTask,
    ClusterDetail,
    ClusterList,
    ClusterListQuery,
    ContentItemResponse,
    ContentSearchRequest,
    ContentSearchResponse,
    EntitySearchRequest,
    EntitySearchResponse,
    EntityTimeline,
    HeraldModel,
    LedgerQuery,
    Monitor,
    MonitorCreateRequest,
    MonitorFeed,
    MonitorFeedRevoked,
    MonitorList,
    MonitorListQuery,
    MonitorPreview,
    MonitorPreviewRequest,
    MonitorResultList,
    MonitorRunList,
    MonitorStoreSearchRequest,
    MonitorUpdateRequest,
    QueuedTask,
    ResultsQuery,
    RunsQuery,
    TimelineQuery,
    WebhookAttemptList,
    WebhookEventsQuery,
    WebhookReplay,
    WebhookReplayRequest,
    WebhookResponse,
    WebhookStats,
    WebhookStatsQuery,
    WebhookTestDeliveries,
    WebhookTestDelivery,
    WebhookTestQuery,
    WebhookUpdateRequest,
)

__all__ = ["ENDPOINTS", "Endpoint"]

ResponseT = TypeVar("ResponseT", bound=HeraldModel)


@dataclass(frozen=True)
class Endpoint(Generic[ResponseT]):
    """One operation. ``retryable``: safe to send again after a 429, 5xx or lost connection
    (reads, PUT, DELETE and the read-only search POSTs; never a POST that creates)."""

    name: str
    method: str
    path: str
    response: type[ResponseT]
    retryable: bool
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None


def _get(
    name: str, path: str, response: type[ResponseT], query: type[BaseModel] | None = None
) -> Endpoint[ResponseT]:
    return Endpoint(name, "GET", path, response, retryable=True, query=query)


CONTENT_SEARCH = Endpoint(
    "content.search",
    "POST",
    "/v1/content/search",
    ContentSearchResponse,
    retryable=True,  # a search changes nothing
    body=ContentSearchRequest,
)
CONTENT_GET = _get("content.get", "/v1/content/{content_id}", ContentItemResponse)

ENTITIES_SEARCH = Endpoint(
    "entities.search",
    "POST",
    "/v1/entities/search",
    EntitySearchResponse,
    retryable=True,
    body=EntitySearchRequest,
)
ENTITIES_TIMELINE = _get(
    "entities.timeline", "/v1/entities/{entity_id}/timeline", EntityTimeline, TimelineQuery
)

CLUSTERS_LIST = _get("clusters.list", "/v1/news/clusters", ClusterList, ClusterListQuery)
CLUSTERS_GET = _get("clusters.get", "/v1/news/clusters/{cluster_id}", ClusterDetail)

MONITORS_CREATE = Endpoint(
    "monitors.create", "POST", "/v1/monitors", Monitor, retryable=False, body=MonitorCreateRequest
)
MONITORS_LIST = _get("monitors.list", "/v1/monitors", MonitorList, MonitorListQuery)
MONITORS_GET = _get("monitors.get", "/v1/monitors/{monitor_id}", Monitor)
# PATCH recomputes next_run_at from the time of the change: sent once, like a POST.
MONITORS_UPDATE = Endpoint(
    "monitors.update",
    "PATCH",
    "/v1/monitors/{monitor_id}",
    Monitor,
    retryable=False,
    body=MonitorUpdateRequest,
)
MONITORS_DELETE = Endpoint(
    "monitors.delete", "DELETE", "/v1/monitors/{monitor_id}", Monitor, retryable=True
)
MONITORS_RUN = Endpoint(
    "monitors.run", "POST", "/v1/monitors/{monitor_id}/run", QueuedTask, retryable=False
)
MONITORS_BACKFILL = Endpoint(
    "monitors.backfill",
    "POST",
    "/v1/monitors/{monitor_id}/backfills",
    QueuedTask,
    retryable=False,
    body=BackfillRequest,
)
MONITORS_LEDGER = _get(
    "monitors.ledger", "/v1/monitors/{monitor_id}/backfills", BackfillLedger, LedgerQuery
)
MONITORS_TASK = _get("monitors.task", "/v1/monitors/{monitor_id}/backfills/{task_id}", BackfillTask)
MONITORS_RUNS = _get("monitors.runs", "/v1/monitors/{monitor_id}/runs", MonitorRunList, RunsQuery)
MONITORS_RESULTS = _get(
    "monitors.results", "/v1/monitors/{monitor_id}/results", MonitorResultList, ResultsQuery
)
MONITORS_SEARCH = Endpoint(
    "monitors.search",
    "POST",
    "/v1/monitors/{monitor_id}/search",
    ContentSearchResponse,
    retryable=True,
    body=MonitorStoreSearchRequest,
)
# Preview saves nothing: safe to send again.
MONITORS_PREVIEW = Endpoint(
    "monitors.preview",
    "POST",
    "/v1/monitors/preview",
    MonitorPreview,
    retryable=True,
    body=MonitorPreviewRequest,
)
# Each call makes a new secret URL (the previous one stops working): sent once.
MONITORS_FEED_CREATE = Endpoint(
    "monitors.create_feed", "POST", "/v1/monitors/{monitor_id}/feed", MonitorFeed, retryable=False
)
MONITORS_FEED_REVOKE = Endpoint(
    "monitors.revoke_feed",
    "DELETE",
    "/v1/monitors/{monitor_id}/feed",
    MonitorFeedRevoked,
    retryable=True,
)

WEBHOOKS_GET = _get("webhooks.get", "/v1/webhooks", WebhookResponse)
WEBHOOKS_PUT = Endpoint(
    "webhooks.put",
    "PUT",
    "/v1/webhooks",
    WebhookResponse,
    retryable=True,
    body=WebhookUpdateRequest,
)
WEBHOOKS_ROTATE = Endpoint(
    "webhooks.rotate_signing_secret",
    "POST",
    "/v1/webhooks/rotate-signing-secret",
    WebhookResponse,
    retryable=False,
)
WEBHOOKS_TEST = Endpoint(
    "webhooks.test", "POST", "/v1/webhooks/test", WebhookTestDelivery, retryable=False
)
# GET /v1/webhooks/test has two shapes: one delivery (with ``id``) or the recent ones.
WEBHOOKS_TEST_GET = _get(
    "webhooks.get_test", "/v1/webhooks/test", WebhookTestDelivery, WebhookTestQuery
)
WEBHOOKS_TEST_LIST = _get("webhooks.list_tests", "/v1/webhooks/test", WebhookTestDeliveries)
WEBHOOKS_EVENTS = _get(
    "webhooks.events", "/v1/webhooks/events", WebhookAttemptList, WebhookEventsQuery
)
WEBHOOKS_STATS = _get("webhooks.stats", "/v1/webhooks/stats", WebhookStats, WebhookStatsQuery)
# A replay sends deliveries again: never repeated by the client on its own.
WEBHOOKS_REPLAY_DELIVERY = Endpoint(
    "webhooks.replay_delivery",
    "POST",
    "/v1/webhooks/deliveries/{delivery_id}/replay",
    WebhookTestDelivery,
    retryable=False,
)
WEBHOOKS_REPLAY = Endpoint(
    "webhooks.replay",
    "POST",
    "/v1/webhooks/replay",
    WebhookReplay,
    retryable=False,
    body=WebhookReplayRequest,
)

ENDPOINTS: tuple[Endpoint[Any], ...] = (
    CONTENT_SEARCH,
    CONTENT_GET,
    ENTITIES_SEARCH,
    ENTITIES_TIMELINE,
    CLUSTERS_LIST,
    CLUSTERS_GET,
    MONITORS_CREATE,
    MONITORS_LIST,
    MONITORS_GET,
    MONITORS_UPDATE,
    MONITORS_DELETE,
    MONITORS_RUN,
    MONITORS_BACKFILL,
    MONITORS_LEDGER,
    MONITORS_TASK,
    MONITORS_RUNS,
    MONITORS_RESULTS,
    MONITORS_SEARCH,
    MONITORS_PREVIEW,
    MONITORS_FEED_CREATE,
    MONITORS_FEED_REVOKE,
    WEBHOOKS_GET,
    WEBHOOKS_PUT,
    WEBHOOKS_ROTATE,
    WEBHOOKS_TEST,
    WEBHOOKS_TEST_GET,
    WEBHOOKS_TEST_LIST,
    WEBHOOKS_EVENTS,
    WEBHOOKS_STATS,
    WEBHOOKS_REPLAY_DELIVERY,
    WEBHOOKS_REPLAY,
)
