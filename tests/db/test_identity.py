"""The database identity: made by the migration, new after `herald db copy` and `herald db
restore` (SQLite and PostgreSQL), and what makes another machine's index rebuild after a restore.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from herald.db.copy import copy_database
from herald.db.identity import read_identity
from herald.db.migrate import upgrade
from herald.search.lexical import LexicalIndex
from tests.db.filled import new_pg_database
from tests.db.test_restore import A, Z, found, ingest, item, pg_env, run
from tests.serving import migrated_light_home

__all__ = ["new_pg_database", "pg_env"]  # the fixtures, for this module's tests

B = item("https://example.com/b", "Bakery opens", "A bakery opened on the corner of the square. ")


def identity_of(url: str) -> str | None:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return read_identity(connection)
    finally:
        engine.dispose()


@pytest.fixture
def new_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Callable[[], str]:
    """Makes new, empty databases of the backend."""
    made = iter(range(100))

    def make() -> str:
        if backend == "sqlite":
            path = tmp_path / f"db{next(made)}" / "herald.db"
            path.parent.mkdir()
            return f"sqlite:///{path}"
        return str(request.getfixturevalue("new_pg_database")())

    return make


def test_every_migrated_database_has_an_identity_of_its_own(new_url: Callable[[], str]) -> None:
    first, second = new_url(), new_url()
    upgrade(first, "0029_entity_removal_in_flight")
    assert identity_of(first) is None  # no table yet: unknown, not an error
    upgrade(first)
    upgrade(second)
    found = identity_of(first), identity_of(second)
    assert None not in found
    assert len(set(found)) == 2
    upgrade(first)  # nothing pending: kept
    assert identity_of(first) == found[0]


def test_a_copy_gets_a_new_identity(new_url: Callable[[], str]) -> None:
    source, target = new_url(), new_url()
    upgrade(source)
    upgrade(target)  # migrated first, as a target may be: still taken as empty
    before = identity_of(target)
    copy_database(source, target)
    copied = identity_of(target)
    assert copied is not None
    assert copied not in (identity_of(source), before)


def test_a_sqlite_restore_gets_a_new_identity(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = migrated_light_home(home)
    ingest(env, tmp_path, A)
    backup = tmp_path / "herald-backup.db"
    run(env, "db", "backup", str(backup))
    with closing(sqlite3.connect(backup)) as db:
        in_backup = db.execute("SELECT identity FROM database_identity").fetchone()[0]
    url = env["HERALD_DATABASE_URL"]
    assert in_backup == identity_of(url)
    run(env, "db", "restore", str(backup), "--no-index")
    restored = identity_of(url)
    assert restored is not None
    assert restored != in_backup
    status = json.loads(run(env, "index", "status", "--json").stdout)
    assert status["database"] == restored


def test_another_machine_rebuilds_its_index_after_a_postgresql_restore(
    tmp_path: Path,
    new_pg_database: Callable[[], str],
    pg_env: Callable[[str, str], dict[str, str]],
) -> None:
    """Machine 2's index applied Z, a change the dump does not hold; the restored database then
    numbers B as Z was numbered, so the change numbers alone would take the index as current."""
    source = new_pg_database()
    upgrade(source)
    first = pg_env("first", source)
    ingest(first, tmp_path, A)
    dump = tmp_path / "herald.dump"
    run(first, "db", "backup", str(dump))
    ingest(first, tmp_path, Z)
    other = pg_env("other", source)  # machine 2: its own home, the same database
    assert found(other, "zebra") == [Z["title"]]
    built_from = json.loads(run(other, "index", "status", "--json").stdout)["built_from"]
    assert built_from == identity_of(source)

    target = new_pg_database()
    restored = pg_env("first", target)
    run(restored, "db", "restore", str(dump))
    assert identity_of(target) not in (None, identity_of(source))
    ingest(restored, tmp_path, B)

    moved = pg_env("other", target)  # machine 2 pointed at the restored database
    status = json.loads(run(moved, "index", "status", "--json").stdout)
    assert status["same_database"] is False
    assert status["current"] is False
    assert status["applied_seq"] <= status["latest_seq"]  # not ahead: only the identity tells
    shown = run(moved, "index", "status").stdout
    assert f"built from database {built_from}, not this one" in shown.replace("\n", " ")
    assert found(moved, "zebra") == []
    assert found(moved, "bakery") == [B["title"]]
    assert found(moved, "harbour cranes") == [A["title"]]
    # Rebuilt: the index holds the restored database's two items (and its watermark), not Z.
    # (Search would not show Z either: its hits are read from the database, which lacks it.)
    lexical = LexicalIndex(tmp_path / "other" / "index" / "lexical")
    assert lexical.searcher().num_docs == 3
    assert json.loads(run(moved, "index", "status", "--json").stdout)["same_database"] is True
