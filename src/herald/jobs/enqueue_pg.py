"""PostgreSQL's path for many jobs of one kind: one statement for the whole batch."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from herald.db.models.job import Job
from herald.jobs.registry import get_kind

__all__ = ["enqueue_many_postgres"]

# The rows enqueue_many writes, the payloads and keys as two arrays: one statement and one plan
# for the whole batch instead of an execution per job. WITH ORDINALITY keeps the given order, so
# ids are assigned as by one INSERT per job; a key already queued (or twice in the batch) drops
# the later job, as there.
_ENQUEUE_MANY_PG = (
    f"INSERT INTO {Job.__tablename__} (kind, lane, payload, unique_key, team_id, status,"
    " priority, run_at, attempts, max_attempts, created_at, updated_at)"
    " SELECT %(kind)s, %(lane)s, t.payload::jsonb, t.unique_key, NULL, 'queued', %(priority)s,"
    " %(now)s, 0, %(max_attempts)s, %(now)s, %(now)s"
    " FROM unnest(%(payloads)s::text[], %(keys)s::text[]) WITH ORDINALITY"
    " AS t(payload, unique_key, n) ORDER BY t.n"
    " ON CONFLICT (unique_key) WHERE status = 'queued' DO NOTHING"
)


def enqueue_many_postgres(
    session: Session,
    kind: str,
    jobs: Sequence[tuple[dict[str, Any], str | None]],
    *,
    now: datetime,
    priority: int,
) -> None:
    """Queue ``jobs`` of one kind as :func:`herald.jobs.queue.enqueue_many` does, in one
    statement."""
    spec = get_kind(kind)
    connection = session.connection()
    serialize = getattr(connection.dialect, "_json_serializer", None) or json.dumps
    parameters = {
        "kind": kind,
        "lane": spec.lane,
        "priority": priority,
        "now": now.astimezone(UTC),
        "max_attempts": spec.retry.max_attempts,
        "payloads": [serialize(payload) for payload, _ in jobs],
        "keys": [key for _, key in jobs],
    }
    connection.exec_driver_sql(_ENQUEUE_MANY_PG, parameters)
