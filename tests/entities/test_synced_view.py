"""The in-memory entity view catches up with the database by reading only what it has not seen."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest
from sqlalchemy import delete
from sqlalchemy.orm import Session

from herald.core.clock import FrozenClock
from herald.db.models.entity import Entity
from herald.db.removal_logs import ENTITIES, prune_removals
from herald.entities import repository, table_changes
from herald.entities.model import EntityRecord
from herald.entities.service import get_entity_store
from herald.entities.views import SyncedView
from herald.runtime import Runtime


def _record(entity_id: str, name: str) -> EntityRecord:
    return EntityRecord(id=entity_id, display_name=name, entity_kind="company")


def _write(runtime: Runtime, records: list[EntityRecord], clock: FrozenClock) -> None:
    with runtime.sessions.write() as session:
        repository.upsert_entities(session, records, now=clock.now())


def test_view_loads_each_version_once_and_picks_up_late_and_updated_rows(
    runtime: Runtime, clock: FrozenClock
) -> None:
    added: list[EntityRecord] = []
    view = SyncedView(added.append)
    _write(runtime, [_record(f"ent_{n}", f"Company {n}") for n in range(50)], clock)
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 50
        assert view.catch_up(session) == 0  # nothing changed: one aggregate query

    # A new entity written right after the seed: only it is loaded, not the 50 seen ones that
    # are still inside the margin window.
    clock.advance(timedelta(seconds=5))
    _write(runtime, [_record("ent_new", "Newco")], clock)
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 1
    assert added[-1].id == "ent_new"

    # A row committed late with an earlier timestamp (inside the margin) is still found, and an
    # updated row is read again in its new version.
    late = clock.now() - timedelta(seconds=30)
    with runtime.sessions.write() as session:
        repository.upsert_entities(session, [_record("ent_late", "Lateco")], now=late)
    clock.advance(timedelta(seconds=5))
    _write(runtime, [_record("ent_3", "Company Three Renamed")], clock)
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 2
    names = {record.id: record.display_name for record in added}
    assert names["ent_late"] == "Lateco"
    assert names["ent_3"] == "Company Three Renamed"
    assert len(added) == 53


def test_a_new_entity_after_a_large_write_reads_only_its_own_version(
    runtime: Runtime, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Right after the seed every batch discovers entities: the view must not re-read the
    # versions of the thousands of seed rows still inside its margin window each time.
    read: list[int] = []
    versions_at = table_changes.entity_versions_at

    def spy(session: Session, stamps: Sequence[datetime]) -> dict[str, datetime]:
        found = versions_at(session, stamps)
        read.append(len(found))
        return found

    monkeypatch.setattr(table_changes, "entity_versions_at", spy)
    added: list[EntityRecord] = []
    view = SyncedView(added.append)
    _write(runtime, [_record(f"ent_{n}", f"Company {n}") for n in range(2000)], clock)
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 2000
    for number in range(3):
        clock.advance(timedelta(seconds=1))
        _write(runtime, [_record(f"ent_new{number}", f"Newco {number}")], clock)
        with runtime.sessions.read() as session:
            assert view.catch_up(session) == 1
    assert read == [2000, 1, 1, 1]
    assert [record.id for record in added[-3:]] == ["ent_new0", "ent_new1", "ent_new2"]


def _delete(runtime: Runtime, *entity_ids: str) -> None:
    with runtime.sessions.write() as session:  # as a merge or a candidate's last item does
        session.execute(delete(Entity).where(Entity.id.in_(entity_ids)))


def test_deleted_entities_leave_the_view_through_the_removal_log(
    runtime: Runtime, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[int] = []
    since = table_changes.entity_removals_since

    def spy(session: Session, after: int) -> list[tuple[str, int]]:
        found = since(session, after)
        read.append(len(found))
        return found

    monkeypatch.setattr(table_changes, "entity_removals_since", spy)
    held: dict[str, EntityRecord] = {}
    view = SyncedView(lambda r: held.__setitem__(r.id, r), lambda eid: held.pop(eid, None))
    _write(runtime, [_record(f"ent_{n}", f"Company {n}") for n in range(20)], clock)
    _delete(runtime, "ent_0")  # before the view was built: its rows already leave it out
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 19
    assert read == []

    _delete(runtime, "ent_1", "ent_2")
    with runtime.sessions.read() as session:
        view.catch_up(session)
    assert set(held) == {f"ent_{n}" for n in range(3, 20)}

    # Deleted, then discovered again under the same id: it stays.
    _delete(runtime, "ent_3")
    clock.advance(timedelta(seconds=5))
    _write(runtime, [_record("ent_3", "Company Three Again"), _record("ent_new", "Newco")], clock)
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 2
    assert held["ent_3"].display_name == "Company Three Again"
    assert "ent_new" in held
    assert len(held) == 18
    with runtime.sessions.read() as session:
        assert view.catch_up(session) == 0  # nothing changed: one aggregate query
    assert len(read) == 2  # the log was read after each change, never for the first load


def test_a_view_that_missed_pruned_removals_is_built_again(
    runtime: Runtime, clock: FrozenClock
) -> None:
    """The removal log is pruned after HERALD_HISTORY_DAYS: a process whose view read nothing
    meanwhile cannot learn of the removals pruned, so its view is built again from the rows."""
    _write(runtime, [_record(f"ent_{n}", f"Acme Widgets {n}") for n in range(3)], clock)
    store = get_entity_store(runtime)
    before = store.search_index()
    assert len(before.search("acme widgets")) == 3

    _delete(runtime, "ent_0")
    _delete(runtime, "ent_1")  # the newest removal: it stays in the log
    days = timedelta(days=runtime.settings.history_days)
    prune_removals(runtime.sessions, now=clock.now(), before=clock.now() - days, log=ENTITIES)
    clock.advance(days + timedelta(days=1))
    pruned = prune_removals(
        runtime.sessions, now=clock.now(), before=clock.now() - days, log=ENTITIES
    )
    assert pruned.rows == 1

    after = store.search_index()
    assert [hit.entity.id for hit in after.search("acme widgets")] == ["ent_2"]
    assert after is not before
    assert store.search_index() is after  # caught up from here on
