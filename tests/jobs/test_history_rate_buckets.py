"""The history job deletes request buckets untouched since its cut-off: one per API key that
ever made a request (revoked keys' too) would otherwise stay for good. A bucket idle that long is
full, so the next request of its key is answered as before."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import insert, select

from herald.db.models.job import RateBucket
from herald.jobs.history import prune_history
from herald.runtime import Runtime
from tests.conftest import START


def test_idle_buckets_leave_after_the_history_days(runtime: Runtime) -> None:
    before = START - timedelta(days=90)
    rows = [
        ("key:revoked-long-ago", before - timedelta(days=400)),
        ("key:idle-since-the-cut-off", before - timedelta(seconds=1)),
        ("key:used-after-the-cut-off", before + timedelta(seconds=1)),
        ("key:in-use", START),
    ]
    with runtime.sessions.write() as session:
        session.execute(
            insert(RateBucket),
            [{"bucket": b, "tokens": 3.0, "updated_at": at.timestamp()} for b, at in rows],
        )
    pruned = prune_history(runtime.sessions, before=before, now=START)
    assert pruned.rate_buckets == 2
    with runtime.sessions.read() as session:
        left = set(session.scalars(select(RateBucket.bucket)))
    assert left == {"key:used-after-the-cut-off", "key:in-use"}
    assert prune_history(runtime.sessions, before=before, now=START).rate_buckets == 0
