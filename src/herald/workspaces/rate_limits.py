"""Token buckets per API key: in this process on SQLite, in the database on PostgreSQL.

SQLite deployments run one API process, so a bucket in memory is the whole truth there and costs
no write per request. With PostgreSQL several API processes serve the same keys, so the bucket
lives in ``rate_buckets`` and one upsert refills it, takes a token and says whether it could:
``N`` processes together allow a key the configured rate, not ``N`` times it.
"""

from __future__ import annotations

import math
import threading
import time

from sqlalchemy import case, func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session

from herald.db.models.job import RateBucket
from herald.errors import RateLimited


def _refused(tokens: float, rate: float) -> RateLimited:
    return RateLimited("rate limit exceeded", retry_after_seconds=math.ceil((1.0 - tokens) / rate))


class LocalBuckets:
    """This process's buckets (monotonic time: immune to wall-clock steps)."""

    def __init__(self) -> None:
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, bucket: str, per_minute: int) -> None:
        rate = per_minute / 60.0
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(bucket, (float(per_minute), now))
            tokens = min(float(per_minute), tokens + (now - last) * rate)
            if tokens < 1.0:
                self._buckets[bucket] = (tokens, now)
                raise _refused(tokens, rate)
            self._buckets[bucket] = (tokens - 1.0, now)


def take_shared(session: Session, bucket: str, per_minute: int, *, now: float) -> None:
    """Take a token from ``bucket`` in the database (PostgreSQL), or raise :class:`RateLimited`.

    The upsert locks the bucket's row, so concurrent requests of one key queue for it and each
    sees the tokens the previous one left.
    """
    rate = per_minute / 60.0
    table = RateBucket.__table__
    statement = pg_insert(RateBucket).values(
        bucket=bucket, tokens=float(per_minute) - 1.0, updated_at=now, allowed=True
    )
    refilled = func.least(
        float(per_minute), table.c.tokens + func.greatest(now - table.c.updated_at, 0.0) * rate
    )
    upsert = statement.on_conflict_do_update(
        index_elements=["bucket"],
        set_={
            "tokens": case((refilled >= 1.0, refilled - 1.0), else_=refilled),
            "updated_at": func.greatest(table.c.updated_at, now),
            "allowed": refilled >= 1.0,
        },
    ).returning(RateBucket.tokens, RateBucket.allowed)
    tokens, allowed = session.execute(upsert).one()
    if not allowed:
        raise _refused(float(tokens), rate)
