"""Request and response shapes of the webhook additions: replays and the target's pause."""

from __future__ import annotations

from pydantic import Field

from herald.api.schemas.common import DateText, Meta, RequestModel, ResponseModel, UtcTimestamp
from herald.webhooks.replay import MAX_REPLAY_DELIVERIES, MAX_REPLAY_WINDOW


class WindowReplayRequest(RequestModel):
    start: DateText | None = Field(
        default=None, description="Window start, a date or datetime (default: 7 days before end)."
    )
    end: DateText | None = Field(
        default=None,
        description="Window end, inclusive; a date covers that whole day (default: now).",
    )


class WindowReplayResponse(ResponseModel):
    start_at: UtcTimestamp
    end_at: UtcTimestamp
    replayed: int = Field(
        description=(
            f"Deliveries made due now (at most {MAX_REPLAY_DELIVERIES} per call; the window is "
            f"at most {MAX_REPLAY_WINDOW.days} days)."
        )
    )
    has_more: bool = Field(description="More unfinished deliveries wait in the window: call again.")
    meta: Meta


class ReplayOfferOut(ResponseModel):
    """What a paused target left unfinished: `start_at`/`end_at` suit `POST /v1/webhooks/replay`."""

    start_at: UtcTimestamp = Field(description="When every attempt began to fail.")
    end_at: UtcTimestamp
    deliveries: int = Field(description="Failed, pending or retrying deliveries created since.")
