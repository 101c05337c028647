"""Webhooks: the workspace's target, signing secret rotation, test deliveries, attempts, stats."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from herald.api.deps import PrincipalDep, RuntimeDep, take_token
from herald.api.schemas.common import DateText, current_meta
from herald.api.schemas.webhook_ops import ReplayOfferOut
from herald.api.schemas.webhooks import (
    AttemptRecordOut,
    AttemptsResponse,
    DeliveriesResponse,
    DeliveryRecordOut,
    DeliveryResponse,
    PutWebhookRequest,
    StatsResponse,
    WebhookConfigurationOut,
    WebhookResponse,
    stats_rows,
)
from herald.webhooks import service
from herald.webhooks.auto_pause import ReplayOffer, resume_if_paused

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])


def _webhook_body(
    config: service.WebhookConfig, secret: str | None, offer: ReplayOffer | None = None
) -> dict[str, Any]:
    body = WebhookResponse(
        webhook=WebhookConfigurationOut.of(config), new_signing_secret=secret, meta=current_meta()
    ).model_dump(mode="json", exclude_unset=True)
    if secret is None:
        body.pop("new_signing_secret")
    if offer is not None:
        body["replay_offer"] = ReplayOfferOut(
            start_at=offer.start, end_at=offer.end, deliveries=offer.deliveries
        ).model_dump(mode="json")
    return body


@router.get("", response_model=WebhookResponse, response_model_exclude_unset=True)
def get_webhook(principal: PrincipalDep, runtime: RuntimeDep) -> Any:
    """The workspace's webhook target (the signing secret shows as a preview only)."""
    with runtime.sessions.read() as session:
        config = service.get_config(session, principal.team_id)
    return _webhook_body(config, None)


@router.put("", response_model=WebhookResponse, response_model_exclude_unset=True)
def put_webhook(body: PutWebhookRequest, principal: PrincipalDep, runtime: RuntimeDep) -> Any:
    """Create or update the target. The URL is checked against the target rules (DNS included).
    `new_signing_secret` appears only when this call created the secret: store it.
    `replay_offer` appears only when this call re-enabled a target Herald had paused."""
    url = (
        service.checked_target_url(runtime, body.url, principal.team_id)
        if body.url is not None
        else None
    )
    with runtime.sessions.write() as session:
        offer = resume_if_paused(
            session, principal.team_id, enabled=body.enabled, clock=runtime.clock
        )
        config, secret = service.save_target(
            session, principal.team_id, url=url, enabled=body.enabled, clock=runtime.clock
        )
    return _webhook_body(config, secret, offer)


@router.post(
    "/rotate-signing-secret", response_model=WebhookResponse, response_model_exclude_unset=True
)
def rotate_signing_secret(principal: PrincipalDep, runtime: RuntimeDep) -> Any:
    """Replace the signing secret, returned once as `new_signing_secret`. For 24 hours
    deliveries carry signatures with both the new and the old secret."""
    with runtime.sessions.write() as session:
        config, secret = service.rotate_signing_secret(session, principal.team_id, runtime.clock)
    return _webhook_body(config, secret)


@router.post("/test", response_model=DeliveryResponse)
def send_test(principal: PrincipalDep, runtime: RuntimeDep) -> DeliveryResponse:
    """Queue a `webhook.test` event and attempt it at once; returns the delivery after that
    attempt (a failed attempt is retried on the usual schedule)."""
    take_token(
        runtime, f"test-delivery:{principal.team_id}", runtime.settings.test_deliveries_per_minute
    )
    delivery = service.send_test_delivery(runtime, principal.team_id)
    return DeliveryResponse(delivery=DeliveryRecordOut.of(delivery), meta=current_meta())


@router.get("/test", response_model=DeliveryResponse | DeliveriesResponse)
def get_tests(
    principal: PrincipalDep,
    runtime: RuntimeDep,
    id: Annotated[int | None, Query(ge=1, le=2**63 - 1, description="A test delivery id.")] = None,
) -> DeliveryResponse | DeliveriesResponse:
    """One test delivery by id, or the 20 most recent test deliveries."""
    with runtime.sessions.read() as session:
        if id is not None:
            one = service.get_test_delivery(session, principal.team_id, id)
            return DeliveryResponse(delivery=DeliveryRecordOut.of(one), meta=current_meta())
        recent = service.recent_test_deliveries(session, principal.team_id)
    return DeliveriesResponse(
        deliveries=[DeliveryRecordOut.of(d) for d in recent], meta=current_meta()
    )


@router.get("/events", response_model=AttemptsResponse)
def list_attempts(
    principal: PrincipalDep,
    runtime: RuntimeDep,
    page: Annotated[int, Query(ge=1, le=100_000, description="1-based; 50 per page.")] = 1,
    start: Annotated[
        DateText | None, Query(description="Window start (default: 7 days before end).")
    ] = None,
    end: Annotated[
        DateText | None, Query(description="Window end, inclusive (default: now).")
    ] = None,
) -> AttemptsResponse:
    """Delivery attempt records in the window, newest first."""
    window = service.inspection_window(
        start, end, now=runtime.clock.now(), default=service.EVENTS_DEFAULT_WINDOW
    )
    with runtime.sessions.read() as session:
        rows, has_more = service.attempts_page(session, principal.team_id, window, page)
    return AttemptsResponse(
        events=[AttemptRecordOut.of(a) for a in rows],
        page=page,
        page_size=service.EVENTS_PAGE_SIZE,
        has_more=has_more,
        meta=current_meta(),
    )


@router.get("/stats", response_model=StatsResponse)
def attempt_stats(
    principal: PrincipalDep,
    runtime: RuntimeDep,
    start: Annotated[
        DateText | None, Query(description="Window start (default: 24 h before end).")
    ] = None,
    end: Annotated[
        DateText | None, Query(description="Window end, inclusive (default: now).")
    ] = None,
    bucket_minutes: Annotated[
        int, Query(description="5, 15, 60 or 1440.", json_schema_extra={"enum": [5, 15, 60, 1440]})
    ] = 60,
) -> StatsResponse:
    """Attempt counts per time bucket and resulting delivery status."""
    window = service.inspection_window(
        start, end, now=runtime.clock.now(), default=service.STATS_DEFAULT_WINDOW
    )
    with runtime.sessions.read() as session:
        rows = service.attempt_stats(session, principal.team_id, window, bucket_minutes)
    return StatsResponse(
        bucket_minutes=bucket_minutes,
        start_at=window.start,
        end_at=window.end,
        stats=stats_rows(rows),
        meta=current_meta(),
    )
