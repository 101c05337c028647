"""Webhook additions: replay one delivery now, or every unfinished delivery of a window."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from herald.api.deps import PrincipalDep, RuntimeDep
from herald.api.schemas.common import current_meta
from herald.api.schemas.webhook_ops import WindowReplayRequest, WindowReplayResponse
from herald.api.schemas.webhooks import DeliveryRecordOut, DeliveryResponse
from herald.webhooks import replay, service

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])


@router.post("/deliveries/{delivery_id}/replay", response_model=DeliveryResponse)
def replay_delivery(
    delivery_id: Annotated[int, Path(ge=1, le=2**63 - 1, description="A delivery id.")],
    principal: PrincipalDep,
    runtime: RuntimeDep,
) -> DeliveryResponse:
    """Send one delivery again now, as a new attempt of the same event (same event id, signed
    with the current secret); returns the delivery after that attempt. `409
    delivery_in_flight` while the delivery is being attempted."""
    delivery = replay.replay_delivery(runtime, principal.team_id, delivery_id)
    return DeliveryResponse(delivery=DeliveryRecordOut.of(delivery), meta=current_meta())


@router.post("/replay", status_code=202, response_model=WindowReplayResponse)
def replay_window(
    principal: PrincipalDep, runtime: RuntimeDep, body: WindowReplayRequest | None = None
) -> WindowReplayResponse:
    """Send again every failed, pending or retrying delivery created in the window, oldest
    first, at most 1,000 per call (window at most 30 days; one call per 30 seconds per
    workspace, else `429 rate_limited`). They go out within seconds through the delivery
    engine; each attempt appears in the attempt log and stats."""
    body = body or WindowReplayRequest()
    window = service.inspection_window(
        body.start, body.end, now=runtime.clock.now(), default=service.EVENTS_DEFAULT_WINDOW
    )
    with runtime.sessions.write() as session:
        outcome = replay.replay_window(
            session, principal.team_id, start=window.start, end=window.end, clock=runtime.clock
        )
    return WindowReplayResponse(
        start_at=outcome.start,
        end_at=outcome.end,
        replayed=outcome.replayed,
        has_more=outcome.more,
        meta=current_meta(),
    )
