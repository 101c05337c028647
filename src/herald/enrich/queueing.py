"""Queueing items for enrichment: one durable job per item, never two queued for the same item.

Kept apart from :mod:`herald.enrich.service` so that what only queues work (the staging of new
entity names, the CLI) does not depend on how enrichment runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from herald.jobs.queue import enqueue

if TYPE_CHECKING:
    from herald.core.clock import Clock

ENRICH_KIND = "enrich.item"


def enrich_unique_key(content_id: str) -> str:
    return f"enrich:{content_id}"


def queue_enrichment(session: Session, content_ids: Sequence[str], *, clock: Clock) -> int:
    """Queue enrichment of items (a queued job for the same item is not duplicated)."""
    queued = 0
    for content_id in content_ids:
        job = enqueue(
            session,
            ENRICH_KIND,
            {"content_id": content_id},
            clock=clock,
            unique_key=enrich_unique_key(content_id),
        )
        queued += job is not None
    return queued
