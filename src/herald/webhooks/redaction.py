"""Taking deleted content out of stored webhook events.

A ``monitor.results.added`` event lists new items with their title and URL, and is stored so that
retries and replays send the very same bytes. When an item is deleted for good, its entry is
removed from every stored event that lists it (``new_result_count`` stays what it was: the count
of what the job found then); later attempts and replays send the redacted body.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from herald.db.models.webhooks import WebhookEvent
from herald.webhooks.payloads import MONITOR_RESULTS_ADDED, encode_event

_CHUNK = 200  # LIKE terms per statement


def redact_items(session: Session, content_ids: Sequence[str]) -> int:
    """Drop ``content_ids`` from stored events' item lists; returns the events rewritten."""
    ids = list(dict.fromkeys(content_ids))
    wanted = set(ids)
    rewritten = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        events = session.scalars(
            select(WebhookEvent).where(
                WebhookEvent.event_type == MONITOR_RESULTS_ADDED,
                or_(*(WebhookEvent.body.contains(f'"{content_id}"') for content_id in chunk)),
            )
        )
        for event in events:
            envelope: dict[str, Any] = orjson.loads(event.body)
            items = envelope.get("data", {}).get("items", [])
            kept = [item for item in items if item.get("id") not in wanted]
            if len(kept) != len(items):
                envelope["data"]["items"] = kept
                event.body = encode_event(envelope).decode("utf-8")
                rewritten += 1
    return rewritten
