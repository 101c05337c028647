"""The webhook target, deliveries, attempts and statistics (section "Webhooks")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from herald_client.models._base import DateInput, HeraldModel, Meta, RequestModel
from herald_client.models._enums import BucketMinutes

__all__ = [
    "SigningSecret",
    "WebhookAttempt",
    "WebhookAttemptList",
    "WebhookConfiguration",
    "WebhookDelivery",
    "WebhookEvent",
    "WebhookEventsQuery",
    "WebhookReplayOffer",
    "WebhookResponse",
    "WebhookStats",
    "WebhookStatsBucket",
    "WebhookStatsQuery",
    "WebhookTestDeliveries",
    "WebhookTestDelivery",
    "WebhookTestQuery",
    "WebhookUpdateRequest",
]


class SigningSecret(HeraldModel):
    version: int
    preview: str  # "whsec_…" and the last four characters; reads never show the secret


class WebhookConfiguration(HeraldModel):
    configured: bool
    url: str | None = None
    enabled: bool | None = None
    signing_secret: SigningSecret | None = None
    disabled_reason: str | None = None  # only while Herald has paused the target
    disabled_at: datetime | None = None


class WebhookReplayOffer(HeraldModel):
    """After re-enabling a target Herald paused: pass start_at/end_at to ``replay``."""

    start_at: datetime
    end_at: datetime
    deliveries: int


class WebhookResponse(HeraldModel):
    """Response of GET and PUT /v1/webhooks and of a rotation.

    ``new_signing_secret`` is the whole secret, only when it was just created or rotated:
    store it, no later read shows it.
    """

    webhook: WebhookConfiguration
    new_signing_secret: str | None = None
    replay_offer: WebhookReplayOffer | None = None  # re-enabling a paused target: what to replay
    meta: Meta | None = None


class WebhookDelivery(HeraldModel):
    id: str
    event_id: str
    event_type: str
    delivery_status: str  # pending, retrying, succeeded, failed
    attempt_count: int
    last_http_status: int | None = None
    last_error: str | None = None
    created_at: datetime
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None


class WebhookTestDelivery(HeraldModel):
    delivery: WebhookDelivery
    meta: Meta | None = None


class WebhookTestDeliveries(HeraldModel):
    deliveries: list[WebhookDelivery]  # the 20 most recent test deliveries
    meta: Meta | None = None


class WebhookAttempt(HeraldModel):
    id: str
    delivery_id: str
    event_id: str
    event_type: str
    attempt_number: int
    delivery_status: str
    http_status: int | None = None
    error: str | None = None
    duration_ms: int | None = None
    attempted_at: datetime


class WebhookAttemptList(HeraldModel):
    events: list[WebhookAttempt]
    page: int
    page_size: int
    has_more: bool
    meta: Meta | None = None


class WebhookStatsBucket(HeraldModel):
    bucket_start: datetime
    delivery_status: str
    attempt_count: int


class WebhookStats(HeraldModel):
    bucket_minutes: int
    start_at: datetime
    end_at: datetime
    stats: list[WebhookStatsBucket]
    meta: Meta | None = None


class WebhookEvent(HeraldModel):
    """The JSON body of a delivery, as returned by ``herald_client.webhooks.verify``."""

    id: str
    type: str
    created_at: datetime
    team_id: str
    data: dict[str, Any]


class WebhookUpdateRequest(RequestModel):
    url: str | None = None
    enabled: bool | None = None


class WebhookTestQuery(RequestModel):
    id: int | None = None


class WebhookEventsQuery(RequestModel):
    page: int | None = None
    start: DateInput | None = None
    end: DateInput | None = None


class WebhookStatsQuery(RequestModel):
    start: DateInput | None = None
    end: DateInput | None = None
    bucket_minutes: BucketMinutes | None = None
