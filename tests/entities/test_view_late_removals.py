"""PostgreSQL draws an entity removal's number before commit: a deletion that commits after
more removals than the view's margin were drawn and read still leaves the view."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import delete

from herald.core.clock import FrozenClock
from herald.db.in_flight import ENTITY_REMOVAL_LOCK_BASE
from herald.db.migrate import MIGRATIONS_DIR
from herald.db.models.entity import Entity
from herald.entities import repository
from herald.entities.model import EntityRecord
from herald.entities.views import SyncedView
from herald.runtime import Runtime


def _delete(runtime: Runtime, entity_id: str) -> None:
    with runtime.sessions.write() as session:
        session.execute(delete(Entity).where(Entity.id == entity_id))


def test_a_deletion_committed_behind_more_than_the_margin_leaves_the_view(
    runtime: Runtime, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    if runtime.backend == "sqlite":
        pytest.skip("SQLite writers commit in the order of their numbers")
    monkeypatch.setattr(SyncedView, "POSTGRES_REMOVAL_MARGIN", 2)
    held: dict[str, EntityRecord] = {}
    view = SyncedView(lambda r: held.__setitem__(r.id, r), lambda eid: held.pop(eid, None))
    records = [
        EntityRecord(id=f"ent_{n}", display_name=f"Co {n}", entity_kind="company")
        for n in range(10)
    ]
    with runtime.sessions.write() as session:
        repository.upsert_entities(session, records, now=clock.now())
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 10

    with runtime.sessions.write() as slow:  # draws its removal number first, commits last
        slow.execute(delete(Entity).where(Entity.id == "ent_0"))
        slow.flush()
        for n in range(1, 6):  # more removals than the margin, each committed at once
            _delete(runtime, f"ent_{n}")
        with runtime.sessions.read() as session:
            view.catch_up(session)
        assert set(held) == {"ent_0", *(f"ent_{n}" for n in range(6, 10))}
    with runtime.sessions.read() as session:
        view.catch_up(session)
    assert set(held) == {f"ent_{n}" for n in range(6, 10)}


def test_the_trigger_locks_removal_numbers_with_the_codes_key() -> None:
    source = Path(MIGRATIONS_DIR, "versions", "0029_entity_removal_in_flight.py").read_text()
    assert f"pg_advisory_xact_lock_shared({ENTITY_REMOVAL_LOCK_BASE} + seq)" in source
