"""Webhook configuration, delivery and attempt records as the API shows them (stable shapes)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from herald.api.schemas.common import Meta, RequestModel, ResponseModel, UtcTimestamp
from herald.api.schemas.webhook_ops import ReplayOfferOut
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery
from herald.webhooks.payloads import EVENT_TYPES_DESCRIPTION
from herald.webhooks.service import WebhookConfig

DeliveryStatus = Literal["pending", "retrying", "succeeded", "failed"]


# What the target rules check without DNS: https, a host name, no credentials. Names that resolve
# to loopback, private or reserved addresses are refused too, which no schema can state.
TARGET_URL_SCHEMA: dict[str, Any] = {
    "type": "string",
    "format": "uri",
    "pattern": "^[Hh][Tt][Tt][Pp][Ss]://[^/?#@:]+(:[0-9]+)?([/?#].*)?$",
}


class PutWebhookRequest(RequestModel):
    url: Annotated[str, WithJsonSchema(TARGET_URL_SCHEMA)] | None = Field(
        default=None, description="HTTPS target URL; required unless a target exists."
    )
    enabled: bool | None = Field(
        default=None, description="Defaults to the existing value, or true for a new target."
    )


class SigningSecretOut(ResponseModel):
    version: int
    preview: str = Field(description="`whsec_…` and the last four characters.")


class WebhookConfigurationOut(ResponseModel):
    configured: bool
    url: str | None
    enabled: bool
    signing_secret: SigningSecretOut | None
    disabled_reason: str | None = Field(
        default=None,
        description="Only when Herald paused the target after failed attempts: why, since when.",
    )
    disabled_at: UtcTimestamp | None = Field(
        default=None, description="Only with `disabled_reason`: when Herald paused the target."
    )

    @classmethod
    def of(cls, config: WebhookConfig) -> WebhookConfigurationOut:
        secret = None
        if config.secret_version is not None and config.secret_preview is not None:
            secret = SigningSecretOut(version=config.secret_version, preview=config.secret_preview)
        return cls(
            configured=config.configured,
            url=config.url,
            enabled=config.enabled,
            signing_secret=secret,
            **(
                {"disabled_reason": config.disabled_reason, "disabled_at": config.disabled_at}
                if config.disabled_reason
                else {}
            ),
        )


class WebhookResponse(ResponseModel):
    webhook: WebhookConfigurationOut
    new_signing_secret: str | None = Field(
        default=None,
        description="The full signing secret: only when it was just created or rotated.",
    )
    replay_offer: ReplayOfferOut | None = Field(
        default=None,
        description="Only when this call re-enabled a target Herald had paused: what to replay.",
    )
    meta: Meta


class DeliveryRecordOut(ResponseModel):
    id: str = Field(description="Delivery id: an integer rendered as a string.")
    event_id: str
    event_type: str = Field(description=EVENT_TYPES_DESCRIPTION)
    delivery_status: DeliveryStatus
    attempt_count: int
    last_http_status: int | None
    last_error: str | None
    created_at: UtcTimestamp
    last_attempt_at: UtcTimestamp | None
    next_attempt_at: UtcTimestamp | None

    @classmethod
    def of(cls, delivery: WebhookDelivery) -> DeliveryRecordOut:
        return cls(
            id=str(delivery.id),
            event_id=delivery.event_id,
            event_type=delivery.event_type,
            delivery_status=delivery.status,
            attempt_count=delivery.attempt_count,
            last_http_status=delivery.last_http_status,
            last_error=delivery.last_error,
            created_at=delivery.created_at,
            last_attempt_at=delivery.last_attempt_at,
            next_attempt_at=delivery.next_attempt_at,
        )


class DeliveryResponse(ResponseModel):
    delivery: DeliveryRecordOut
    meta: Meta


class DeliveriesResponse(ResponseModel):
    deliveries: list[DeliveryRecordOut] = Field(description="The 20 most recent, newest first.")
    meta: Meta


class AttemptRecordOut(ResponseModel):
    id: str
    delivery_id: str
    event_id: str
    event_type: str = Field(description=EVENT_TYPES_DESCRIPTION)
    attempt_number: int
    delivery_status: DeliveryStatus = Field(description="The delivery's status after this try.")
    http_status: int | None
    error: str | None
    duration_ms: int
    attempted_at: UtcTimestamp

    @classmethod
    def of(cls, attempt: WebhookAttempt) -> AttemptRecordOut:
        return cls(
            id=str(attempt.id),
            delivery_id=str(attempt.delivery_id),
            event_id=attempt.event_id,
            event_type=attempt.event_type,
            attempt_number=attempt.attempt_number,
            delivery_status=attempt.delivery_status,
            http_status=attempt.http_status,
            error=attempt.error,
            duration_ms=attempt.duration_ms,
            attempted_at=attempt.attempted_at,
        )


class AttemptsResponse(ResponseModel):
    events: list[AttemptRecordOut] = Field(description="Attempt records, newest first.")
    page: int = Field(ge=1, le=100_000, description="This page, 1-based.")
    page_size: int = Field(description="Always 50.", json_schema_extra={"const": 50})
    has_more: bool = Field(description="Whether page + 1 has records.")
    meta: Meta


class StatsBucketOut(ResponseModel):
    bucket_start: UtcTimestamp
    delivery_status: DeliveryStatus
    attempt_count: int


class StatsResponse(ResponseModel):
    bucket_minutes: int
    start_at: UtcTimestamp
    end_at: UtcTimestamp
    stats: list[StatsBucketOut] = Field(
        description="Non-empty buckets only, oldest first; buckets align to multiples of "
        "bucket_minutes since 1970-01-01T00:00Z."
    )
    meta: Meta


def stats_rows(rows: list[tuple[datetime, str, int]]) -> list[StatsBucketOut]:
    return [
        StatsBucketOut(bucket_start=start, delivery_status=status, attempt_count=count)
        for start, status, count in rows
    ]
