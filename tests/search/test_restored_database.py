"""A database restored from a backup, or copied, under a home whose indexes are newer (SQLite and
PostgreSQL): the indexes have applied changes the database does not have, and the numbers of
those changes are handed out again to new writes. Such an index must not be taken as current:
new items would stay out of search (and out of every monitor) until the database's numbering
passed the index's, and items gone with the restore would still be found."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.copy import copy_database
from herald.runtime import Runtime
from herald.search.adapter import HybridAdapter
from herald.search.documents import content_key
from herald.search.service import get_search
from herald.search.status import index_status
from tests.db.filled import new_pg_database
from tests.enrich.models import embedder
from tests.search.support import GLACIER, HARBOUR, NOW, VOLCANO, put_story
from tests.search.test_late_commits import titles

__all__ = ["new_pg_database"]  # the fixture, for this module's tests


@pytest.fixture
def backup_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """An empty database to copy the backup into (a copy keeps every change number)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'backup' / 'herald.db'}"
    return str(request.getfixturevalue("new_pg_database")())


def test_an_index_ahead_of_a_restored_database_is_not_kept(
    search_runtime: Runtime, backup_url: str
) -> None:
    runtime = search_runtime
    put_story(runtime, "volcano", VOLCANO)
    assert titles(runtime, "volcano") == [VOLCANO]
    copy_database(runtime.settings.resolved_database_url, backup_url)  # the nightly backup
    for number in range(3):  # written after the backup: the indexes apply them
        put_story(runtime, f"glacier-{number}", f"{GLACIER} ({number})")
    assert len(titles(runtime, "glacier")) == 3
    home = runtime.settings.home
    runtime.close()

    # Restored: the same home (its indexes as they were), the database as it was at the backup.
    settings = Settings(
        home=home, database_url=backup_url, log_format="text", rate_limit_per_minute=0
    )
    restored = Runtime(settings, clock=FrozenClock(NOW))
    try:
        restored.service("embedder", embedder)  # the session's model
        status = index_status(restored)
        assert not status.current, status
        assert status.problem is not None
        assert "herald index rebuild" in status.problem
        env = {
            "HERALD_HOME": str(home),
            "HERALD_DATABASE_URL": backup_url,
            "HERALD_EMBEDDING_MODEL": "herald-hashing",
            "HERALD_ENTITY_SEED": "none",
        }
        shown = CliRunner().invoke(app, ["index", "status"], env=env)
        assert "herald index rebuild" in shown.output, shown.output

        # A new item, numbered as a change the indexes hold.
        harbour = put_story(restored, "harbour", HARBOUR)
        assert titles(restored, "harbour strike") == [HARBOUR]
        assert titles(restored, "glacier") == []
        assert titles(restored, "volcano") == [VOLCANO]
        vectors = get_search(restored).index.vectors  # this process's graph, loaded from disk
        assert len(vectors) == 2
        assert vectors.rows_of(np.array([content_key(harbour)], dtype=np.int64))[0] >= 0
        assert index_status(restored).current
    finally:
        restored.close()


def test_an_index_is_kept_when_the_database_cannot_say(search_runtime: Runtime) -> None:
    """The comparison reads the primary; when it cannot answer (down while replicas serve), the
    index is kept as it is rather than emptied on a guess."""
    put_story(search_runtime, "volcano", VOLCANO)
    assert titles(search_runtime, "volcano") == [VOLCANO]
    index = get_search(search_runtime).index
    assert isinstance(index, HybridAdapter)
    assert not index.drop_if_ahead(lambda: None)
    assert titles(search_runtime, "volcano") == [VOLCANO]
    assert index.drop_if_ahead(lambda: 0)  # a database without that change: emptied
