"""Queueing items for enrichment: one durable job per item, never two queued for the same item.

Kept apart from :mod:`herald.enrich.service` so that what only queues work (the staging of new
entity names, the CLI, ingestion) does not depend on how enrichment runs.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from herald.jobs.queue import enqueue, enqueue_many
from herald.jobs.registry import get_kind

if TYPE_CHECKING:
    from herald.core.clock import Clock

log = logging.getLogger(__name__)

ENRICH_KIND = "enrich.item"
SEARCH_SYNC_KIND = "search.sync"
CLUSTER_KIND = "clusters.assign"


def enrich_unique_key(content_id: str) -> str:
    return f"enrich:{content_id}"


def queue_enrichment(session: Session, content_ids: Sequence[str], *, clock: Clock) -> int:
    """Queue enrichment of items (a queued job for the same item is not duplicated); returns
    how many jobs were added."""
    jobs = [({"content_id": cid}, enrich_unique_key(cid)) for cid in content_ids]
    return enqueue_many(session, ENRICH_KIND, jobs, clock=clock)


def queue_follow_ups(session: Session, items: Sequence[tuple[str, str]], *, clock: Clock) -> None:
    """Queue what follows a new enrichment of ``items`` (``(content_id, media_type)``), or an
    update that kept it: search indexing, and clustering for news and wire (a clustered item's
    story takes its new publication time and source, :mod:`herald.clusters.refresh`)."""
    if _registered(SEARCH_SYNC_KIND):
        enqueue(session, SEARCH_SYNC_KIND, {}, clock=clock, unique_key=SEARCH_SYNC_KIND)
    if _registered(CLUSTER_KIND):
        jobs = [
            ({"content_id": content_id}, f"cluster:{content_id}")
            for content_id, media_type in items
            if media_type in ("news", "wire")
        ]
        enqueue_many(session, CLUSTER_KIND, jobs, clock=clock)


def _registered(kind: str) -> bool:
    try:
        get_kind(kind)
    except LookupError:
        log.debug("job kind %s is not registered; not queued", kind)
        return False
    return True
