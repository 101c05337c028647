"""`herald db copy`: a Herald filled on SQLite moves to PostgreSQL and back, and serves the same.

The source home is filled by the real pipeline: a workspace and its key, a webhook target with
its signing secret, items ingested and enriched (entities, embeddings, clusters), a monitor run
with its results, ledger, runs, events and deliveries, and one item deleted outright (a removal
in the change feed). After each copy every row of every table reads back the same through the
models, the same key authenticates, the same searches give the same ids in the same order, and
a delivery signed on the target verifies with the secret the receiver got from the source.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from herald.db.base import Base
from herald.db.copy import DERIVED_TABLES, KEPT_TABLES, copied_tables
from herald.db.migrate import upgrade
from tests.db.filled import (
    Filled,
    all_rows,
    assert_keeps_working,
    assert_serves_the_same,
    herald_copy,
    raw_facts,
)

# One worker fills the home once for all of them.
pytestmark = pytest.mark.xdist_group("db-filled")


@pytest.mark.slow
def test_sqlite_to_postgresql_and_back(filled: Filled, pg_url: str, tmp_path: Path) -> None:
    source_url = filled.settings.resolved_database_url
    assert all(filled.searches), filled.searches  # every query finds something
    assert filled.monitor_results
    rows = all_rows(source_url)
    empty = {name for name, found in rows.items() if not found}
    # Tables this fill cannot reach without more machinery; every other one is exercised.
    assert empty <= {
        "content_deletions",
        "content_tombstones",
        "entity_aliases",
        "entity_redirects",
        "ingest_sources",
        "job_turns",
        "monitor_feeds",
        "rate_buckets",
        "webhook_attempts",
        "webhook_replays",
        "webhook_target_audit",
    }, empty

    facts = raw_facts(source_url)
    assert facts["child runs"] > 0  # a run's parent run: a table that refers to itself
    assert facts["SQL NULL transcripts"] == 1
    assert facts["JSON null transcripts"] == facts["items"] - 2  # the podcast has its segments
    assert facts["given languages"] == 1  # both kinds of language, each kept as it is
    assert facts["detected languages"] == facts["items"] - 1
    assert facts["page fetch failures"] == 2  # a teaser's failed page fetches

    pg_home = tmp_path / "pg-home"
    result = herald_copy(source_url, pg_url, pg_home)
    assert result.exit_code == 0, result.output
    assert all_rows(pg_url) == rows
    assert raw_facts(pg_url) == facts
    assert_serves_the_same(filled, pg_home, pg_url)

    again = herald_copy(source_url, f"{pg_url}?password=pw-not-shown", pg_home)
    assert again.exit_code == 1
    assert "not empty" in again.output
    assert "pw-not-shown" not in again.output  # a password given as the URL's parameter

    back_home = tmp_path / "back"
    back_url = f"sqlite:///{back_home / 'herald.db'}"
    result = herald_copy(pg_url, back_url, tmp_path / "unused")
    assert result.exit_code == 0, result.output
    assert (back_home / "index" / "lexical").is_dir()  # built beside the copied database
    assert all_rows(back_url) == rows
    assert raw_facts(back_url) == facts
    assert_serves_the_same(filled, back_home, back_url)
    for home, url in [(pg_home, pg_url), (back_home, back_url)]:  # each as copied until now
        assert_keeps_working(filled, home, url)


def test_every_table_is_copied_derived_or_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'herald.db'}"
    upgrade(url)
    engine = create_engine(url)
    try:
        migrated = set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()
    copied = {t.name for t in copied_tables()}
    assert copied | set(DERIVED_TABLES) | set(KEPT_TABLES) == migrated == set(Base.metadata.tables)
    assert not copied & (set(DERIVED_TABLES) | set(KEPT_TABLES))


def test_a_nonempty_target_is_refused(tmp_path: Path) -> None:
    source = f"sqlite:///{tmp_path / 'a' / 'herald.db'}"
    target = f"sqlite:///{tmp_path / 'b' / 'herald.db'}"
    upgrade(source)
    upgrade(target)
    engine = create_engine(target)
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO teams (id, name, created_at) VALUES ('team_x', 'x', '2026-11-01')")
        )
    engine.dispose()
    result = herald_copy(source, target, tmp_path / "home")
    assert result.exit_code == 1
    assert "not empty" in result.output
    assert "teams" in result.output


def test_a_missing_source_is_refused_and_not_created(tmp_path: Path) -> None:
    target = f"sqlite:///{tmp_path / 'b' / 'herald.db'}"
    result = herald_copy(f"sqlite:///{tmp_path / 'nothing.db'}", target, tmp_path / "home")
    assert result.exit_code == 1
    assert "no SQLite database" in result.output
    assert not (tmp_path / "nothing.db").exists()
