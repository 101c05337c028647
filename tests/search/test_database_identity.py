"""An index records the identity of the database it was built from (SQLite and PostgreSQL).

The same home pointed at another database (a copy, a restore, another HERALD_DATABASE_URL) that
went its own way is emptied and rebuilt, even when that database's change numbers do not tell:
they overlap, and the other database is not behind the index. A restart against the same
database keeps the index; an index built before identities records it and is kept; a database
whose migrations have not run has no identity and search says the migrations are pending.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.copy import copy_database
from herald.db.identity import read_identity
from herald.db.migrate import upgrade
from herald.runtime import Runtime
from herald.search.documents import content_key
from herald.search.feed import latest_change
from herald.search.service import get_search
from herald.search.status import index_status
from tests.db.filled import new_pg_database
from tests.enrich.models import embedder
from tests.search.support import GLACIER, HARBOUR, NOW, VOLCANO, put_story
from tests.search.test_late_commits import titles

__all__ = ["new_pg_database"]  # the fixture, for this module's tests

BEFORE_IDENTITY = "0029_entity_removal_in_flight"


def _open(home: Path, url: str) -> Runtime:
    settings = Settings(home=home, database_url=url, log_format="text", rate_limit_per_minute=0)
    runtime = Runtime(settings, clock=FrozenClock(NOW))
    runtime.service("embedder", embedder)  # the session's model
    return runtime


def _identity(runtime: Runtime) -> str | None:
    with runtime.sessions.read() as session:
        return read_identity(session)


def _latest(runtime: Runtime) -> int:
    with runtime.sessions.read() as session:
        return latest_change(session)


@pytest.fixture
def other_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A new, empty database."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'other' / 'herald.db'}"
    return str(request.getfixturevalue("new_pg_database")())


def test_an_index_built_from_another_database_serves_the_new_one(
    search_runtime: Runtime, other_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    first = search_runtime
    put_story(first, "volcano", VOLCANO)
    copy_database(first.settings.resolved_database_url, other_url)  # B starts as A was
    glacier = put_story(first, "glacier", GLACIER)  # only in A: the home's indexes apply it
    assert titles(first, "glacier") == [GLACIER]
    assert len(get_search(first).index.vectors) == 2
    built_from = _identity(first)
    home = first.settings.home
    first.close()  # saves the vector graph with A's identity

    second = _open(home, other_url)
    try:
        harbour = put_story(second, "harbour", HARBOUR)  # only in B, numbered as A numbered glacier
        put_story(second, "volcano-2", f"{VOLCANO} again")
        # B is not behind the index: the change numbers alone would take it as current.
        status = index_status(second)
        assert status.applied_seq <= _latest(second)
        assert status.built_from == built_from != status.database == _identity(second)
        assert status.same_database is False
        assert not status.current
        assert status.problem is not None
        assert "another database" in status.problem

        with caplog.at_level(logging.WARNING, logger="herald.search.projection"):
            assert titles(second, "harbour strike") == [HARBOUR]
        assert "search index built from another database" in caplog.text
        assert titles(second, "glacier") == []
        assert sorted(titles(second, "volcano")) == sorted([VOLCANO, f"{VOLCANO} again"])
        vectors = get_search(second).index.vectors  # this process's graph, A's on disk
        assert len(vectors) == 3
        assert vectors.rows_of(np.array([content_key(glacier)], dtype=np.int64))[0] == -1
        assert vectors.rows_of(np.array([content_key(harbour)], dtype=np.int64))[0] >= 0
        after = index_status(second)
        assert after.same_database is True
        assert after.current, after
    finally:
        second.close()


def test_a_restart_against_the_same_database_keeps_the_index(
    search_runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    put_story(search_runtime, "volcano", VOLCANO)
    assert titles(search_runtime, "volcano") == [VOLCANO]
    home, url = search_runtime.settings.home, search_runtime.settings.resolved_database_url
    search_runtime.close()

    again = _open(home, url)
    try:
        assert index_status(again).same_database is True
        vectors = get_search(again).index.vectors  # the saved graph
        assert len(vectors) == 1
        assert vectors.database == _identity(again)
        with caplog.at_level(logging.WARNING), again.sessions.read() as session:
            # The shared index applies nothing: a rebuild would add the item again.
            assert get_search(again).catch_up(session, shared_only=True) == 0
            get_search(again).catch_up(session)
        assert "another database" not in caplog.text
        assert titles(again, "volcano") == [VOLCANO]
    finally:
        again.close()


def test_an_index_built_before_identities_records_it_and_is_kept(
    other_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home, url = tmp_path / "home-before", other_url
    upgrade(url, BEFORE_IDENTITY)  # a database of the version before identities
    old = _open(home, url)
    try:
        assert _identity(old) is None
        put_story(old, "volcano", VOLCANO)
        assert titles(old, "volcano") == [VOLCANO]
        assert index_status(old).built_from is None  # nothing to record
    finally:
        old.close()

    upgrade(url)  # the upgrade gives the database an identity
    upgraded = _open(home, url)
    try:
        database = _identity(upgraded)
        assert database is not None
        vectors = get_search(upgraded).index.vectors  # the saved graph, without identity
        assert len(vectors) == 1
        assert vectors.database is None
        with caplog.at_level(logging.WARNING), upgraded.sessions.read() as session:
            # Recorded, not rebuilt: the shared index applies nothing.
            assert get_search(upgraded).catch_up(session, shared_only=True) == 0
            get_search(upgraded).catch_up(session)
        assert "another database" not in caplog.text
        status = index_status(upgraded)
        assert status.built_from == database
        assert status.current, status
        assert get_search(upgraded).index.vectors.database == database
        assert titles(upgraded, "volcano") == [VOLCANO]
    finally:
        upgraded.close()


@pytest.fixture
def unmigrated_url(backend: str, tmp_path: Path, new_pg_database: Callable[[], str]) -> str:
    if backend == "sqlite":
        path = tmp_path / "unmigrated" / "herald.db"
        path.parent.mkdir()
        path.touch()  # an empty SQLite database
        return f"sqlite:///{path}"
    return new_pg_database()


def test_an_unmigrated_database_has_no_identity_and_search_says_so(
    unmigrated_url: str, tmp_path: Path
) -> None:
    runtime = _open(tmp_path / "home", unmigrated_url)
    try:
        assert _identity(runtime) is None
    finally:
        runtime.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(tmp_path / "home"),
        "HERALD_DATABASE_URL": unmigrated_url,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": "none",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
    }
    for args in (["search", "volcano"], ["index", "status"]):
        done = subprocess.run(
            [sys.executable, "-m", "herald.cli.main", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        assert "migrations are pending: run `herald db upgrade`" in done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr
