"""The event envelope (stable) and its exact bytes on the wire.

The body is serialised once, when the event is recorded, and stored as is: every attempt (and
every retry days later) sends and signs the very same bytes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from herald.core.clock import isoformat_z

WEBHOOK_TEST = "webhook.test"
MONITOR_RESULTS_ADDED = "monitor.results.added"
MONITOR_BACKFILL_COMPLETED = "monitor.backfill.completed"
MONITOR_RUN_FAILED = "monitor.run.failed"
EVENT_TYPES = frozenset(
    {WEBHOOK_TEST, MONITOR_RESULTS_ADDED, MONITOR_BACKFILL_COMPLETED, MONITOR_RUN_FAILED}
)
# When each type is sent, said once for the OpenAPI document (docs/webhooks.md says the same).
EVENT_TYPES_DESCRIPTION = (
    "The event type. `monitor.results.added`: a dated job (of any run) captured new results. "
    "`monitor.run.failed`: a dated job (of any run) failed for good. "
    "`monitor.backfill.completed`: a run-now or backfill task finished; scheduled runs never "
    "send it. `webhook.test`: sent by `POST /v1/webhooks/test`."
)
MAX_RESULTS_ITEMS = 20  # monitor.results.added carries at most 20 new items (stable)


def event_envelope(
    *, event_id: str, event_type: str, created_at: datetime, team_id: str, data: dict[str, Any]
) -> dict[str, Any]:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown webhook event type {event_type!r}")
    return {
        "id": event_id,
        "type": event_type,
        "created_at": isoformat_z(created_at),
        "team_id": team_id,
        "data": data,
    }


def encode_event(envelope: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON; datetimes inside ``data`` are rendered as ISO 8601 UTC with ``Z``."""
    return orjson.dumps(envelope, default=_default, option=orjson.OPT_UTC_Z)


def _default(value: Any) -> Any:
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"cannot put {type(value).__name__} in a webhook event")
