"""The removal log (``content_removals``) is pruned by the daily history job once its removals are
older than HERALD_HISTORY_DAYS (SQLite and PostgreSQL): a mark taken each day says which; the
newest removal always stays, so change numbers never go down; what was pruned is recorded."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from herald.content.changes import next_change_seq
from herald.core.clock import FrozenClock
from herald.db import removal_logs
from herald.db.models.content import ContentItem, ContentRemoval, RemovalMark
from herald.db.removal_logs import prune_removals, pruned_through
from herald.jobs.history import schedule_prune
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.search.support import put_item

DAYS = 90


def _put(runtime: Runtime, name: str) -> str:
    return put_item(runtime, name, title=name, published_at=runtime.clock.now())


def _remove(runtime: Runtime, *content_ids: str) -> None:
    with runtime.sessions.write() as session:  # a hard delete: the trigger records each
        for content_id in content_ids:
            session.delete(session.get(ContentItem, content_id))


def _removals(runtime: Runtime) -> dict[str, int]:
    with runtime.sessions.read() as session:
        rows = session.execute(select(ContentRemoval.content_id, ContentRemoval.change_seq))
        return {cid: int(seq) for cid, seq in rows}


def _prune(runtime: Runtime) -> int:
    now = runtime.clock.now()
    return prune_removals(runtime.sessions, now=now, before=now - timedelta(days=DAYS)).rows


def test_removals_older_than_the_window_are_pruned_and_the_newest_stays(
    runtime: Runtime, clock: FrozenClock
) -> None:
    old = [_put(runtime, f"old{n}") for n in range(4)]
    _remove(runtime, old[0], old[1])
    _remove(runtime, old[2])
    assert _prune(runtime) == 0  # nothing is older than the window yet; today's mark taken
    assert _prune(runtime) == 0  # one mark a day
    clock.advance(timedelta(days=30))
    _remove(runtime, old[3])  # after the first mark: kept until a later mark ages out
    assert _prune(runtime) == 0
    clock.advance(timedelta(days=DAYS - 30 + 1))
    before = _removals(runtime)
    latest = max(before.values())

    assert _prune(runtime) == 3
    assert set(_removals(runtime)) == {old[3]}
    with runtime.sessions.read() as session:
        assert pruned_through(session) == before[old[2]]
        names = set(session.scalars(select(RemovalMark.name)))
    assert names == {
        "content:pruned",
        "content:day:2026-11-25",
        "content:day:2026-12-25",
        "content:day:2027-02-24",
    }
    assert _prune(runtime) == 0  # a repeated pass deletes nothing

    # The newest removal stays even once its mark ages out: numbers never go down.
    clock.advance(timedelta(days=DAYS + 1))
    assert _prune(runtime) == 0
    assert set(_removals(runtime)) == {old[3]}
    with runtime.sessions.write() as session:
        assert next_change_seq(session) > latest
        assert len(set(session.scalars(select(RemovalMark.name)))) == 3  # older ones gone


def test_batches_run_until_every_old_removal_is_gone(
    runtime: Runtime, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(removal_logs, "BATCH", 2)
    ids = [_put(runtime, f"item{n}") for n in range(7)]
    for content_id in ids:
        _remove(runtime, content_id)
    _prune(runtime)
    clock.advance(timedelta(days=DAYS + 1))
    assert _prune(runtime) == 6
    assert set(_removals(runtime)) == {ids[-1]}


def test_the_daily_history_job_prunes_the_removal_log(runtime: Runtime, clock: FrozenClock) -> None:
    ids = [_put(runtime, f"item{n}") for n in range(3)]
    _remove(runtime, ids[0])
    _remove(runtime, ids[1])
    assert schedule_prune(runtime) is True
    run_jobs(runtime)  # today's mark
    clock.advance(timedelta(days=DAYS + 1))
    _remove(runtime, ids[2])
    assert schedule_prune(runtime) is True
    run_jobs(runtime)
    assert set(_removals(runtime)) == {ids[2]}
    with runtime.sessions.read() as session:
        names = set(session.scalars(select(RemovalMark.name)))
    assert names == {
        "content:pruned",
        "content:day:2026-11-25",
        "content:day:2027-02-24",
        "entities:day:2026-11-25",  # the entity log's marks, nothing in it to prune
        "entities:day:2027-02-24",
    }
