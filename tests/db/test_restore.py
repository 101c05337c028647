"""`herald db restore`: a backup put back is what the database holds and what search finds.

SQLite: a leftover write-ahead log of a crashed process (killed with SIGKILL after committing) is
never replayed into the restored file, a process holding the database open makes the restore
refuse, and the search index built before never answers with items the backup does not hold.
PostgreSQL: the dump goes into a new, empty database only.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from herald.cli.main import app
from herald.db.migrate import upgrade
from tests.serving import migrated_light_home

HOLD = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")  # its commits stay in the -wal, as a busy Herald's do
db.execute("INSERT INTO rate_buckets (bucket, tokens, updated_at, allowed) VALUES "
           "('written-after-the-backup', 1.0, 0.0, 1)")
print("ready", flush=True)
time.sleep(600)
"""


def item(url: str, title: str, body: str) -> dict[str, Any]:
    return {
        "url": url,
        "title": title,
        "body": body * 5,
        "media_type": "news",
        "published_date": "2026-11-01",
        "source": {"name": "Example", "domain": "example.com"},
    }


def ingest(env: dict[str, str], tmp: Path, *items: dict[str, Any]) -> None:
    path = tmp / "items.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in items))
    run(env, "ingest", str(path))


def run(env: dict[str, str], *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exit_code == code, result.output
    return result


def found(env: dict[str, str], query: str) -> list[str]:
    results = json.loads(run(env, "search", query, "--json").stdout)["results"]
    return sorted(hit["title"] for hit in results)


def libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def count(database: Path, query: str) -> int:
    with closing(sqlite3.connect(database)) as db:
        return int(db.execute(query).fetchone()[0])


@contextmanager
def holding_open(database: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process with the database open that has committed a write after the backup."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(database)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        yield holder
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait()
        holder.stdout.close()  # type: ignore[union-attr]


A = item("https://example.com/a", "Harbour cranes", "Dock workers tested new harbour cranes. ")
Z = item("https://example.com/z", "Zebra crossing", "A zebra crossing was painted downtown. ")


def test_sqlite_restore_refuses_while_open_and_never_replays_the_old_log(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = migrated_light_home(home)
    database = home / "herald.db"
    ingest(env, tmp_path, A)
    backup = tmp_path / "backups" / "herald.db"
    run(env, "db", "backup", str(backup))
    ingest(env, tmp_path, Z)  # after the backup: only in the index and the database
    assert found(env, "zebra") == [Z["title"]]

    with holding_open(database) as holder:
        refused = run(env, "db", "restore", str(backup), code=1)
        assert "a process has" in refused.output
        assert "stop every Herald process" in refused.output
        assert count(database, "SELECT count(*) FROM content_items") == 2  # unchanged
        holder.send_signal(signal.SIGKILL)  # it crashes: its commit stays in the -wal
        holder.wait()
    wal = database.with_name("herald.db-wal")
    assert wal.stat().st_size > 0

    restored = json.loads(run(env, "db", "restore", str(backup), "--json").stdout)
    assert restored["content_items"] == 1
    assert restored["indexed_items"] == 1
    assert count(database, "SELECT count(*) FROM content_items") == 1
    # The crashed process's commit was in the old log: not replayed into the restored file ...
    held = "SELECT count(*) FROM rate_buckets WHERE bucket = 'written-after-the-backup'"
    assert count(database, held) == 0
    # ... but kept, with the database it belonged to, beside it.
    kept = Path(restored["replaced"])
    assert kept.with_name(kept.name + "-wal").exists()
    assert not wal.exists()
    assert count(kept, held) == 1
    assert count(kept, "SELECT count(*) FROM content_items") == 2
    assert not list(home.glob("*.restoring*"))
    # The index held Z: it answers from the restored database only.
    assert found(env, "zebra") == []
    assert found(env, "harbour cranes") == [A["title"]]
    # New writes after the restore reuse the change numbers the old index had applied: found.
    ingest(env, tmp_path, item("https://example.com/b", "Bicycle lanes", "New bicycle lanes. "))
    assert found(env, "bicycle") == ["Bicycle lanes"]


def test_sqlite_restore_without_index_leaves_no_stale_index(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = migrated_light_home(home)
    ingest(env, tmp_path, A)
    backup = tmp_path / "herald-backup.db"
    run(env, "db", "backup", str(backup))
    ingest(env, tmp_path, Z)
    assert found(env, "zebra") == [Z["title"]]
    run(env, "db", "restore", str(backup), "--no-index")
    assert not (home / "index").exists()
    assert found(env, "zebra") == []
    assert found(env, "harbour") == [A["title"]]


def test_sqlite_restore_refuses_what_is_not_a_whole_herald_database(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = migrated_light_home(home)
    database = home / "herald.db"
    ingest(env, tmp_path, A)
    good = tmp_path / "good.db"
    run(env, "db", "backup", str(good))

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    foreign = tmp_path / "foreign.db"
    with closing(sqlite3.connect(foreign)) as db:
        db.execute("CREATE TABLE t (x)")
        db.commit()
    newer = tmp_path / "newer.db"
    newer.write_bytes(good.read_bytes())
    with closing(sqlite3.connect(newer)) as db:
        db.execute("UPDATE alembic_version SET version_num = '9999_from_a_newer_herald'")
        db.commit()
    torn = tmp_path / "torn.db"
    torn.write_bytes(good.read_bytes()[: good.stat().st_size // 2])

    for bad, said in [
        (tmp_path / "missing.db", "there is no file"),
        (garbage, "is not a Herald database"),
        (foreign, "is not a Herald database"),
        (newer, "which this version of Herald does not know"),
        (torn, "herald"),
    ]:
        refused = run(env, "db", "restore", str(bad), code=1)
        assert said in refused.output.lower().replace("\n", " ") or said in refused.output
        assert count(database, "SELECT count(*) FROM content_items") == 1
        assert not list(home.glob("herald.db.replaced-*"))
        assert found(env, "harbour") == [A["title"]]


def test_restore_migrates_an_older_backup(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = migrated_light_home(home)
    old = tmp_path / "old.db"
    upgrade(f"sqlite:///{old}", "0002_ingest")  # a backup an early version made
    restored = json.loads(run(env, "db", "restore", str(old), "--no-index", "--json").stdout)
    assert restored["schema_revision"] == "0002_ingest"
    current = json.loads(run(env, "db", "current", "--json").stdout)
    assert current["up_to_date"] is True


@pytest.fixture
def pg_env(
    tmp_path: Path, new_pg_database: Callable[[], str]
) -> Callable[[str, str], dict[str, str]]:
    def make(name: str, url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
        return env | {
            "HERALD_HOME": str(tmp_path / name),
            "HERALD_DATABASE_URL": url,
            "HERALD_EMBEDDING_MODEL": "herald-hashing",
            "HERALD_ENTITY_SEED": "none",
        }

    return make


def test_postgresql_restore_loads_a_dump_into_a_new_empty_database_only(
    tmp_path: Path,
    new_pg_database: Callable[[], str],
    pg_env: Callable[[str, str], dict[str, str]],
) -> None:
    source = new_pg_database()
    upgrade(source)
    first = pg_env("first", source)
    ingest(first, tmp_path, A)
    dump = tmp_path / "herald.dump"
    run(first, "db", "backup", str(dump))
    ingest(first, tmp_path, Z)

    # Over the database it came from (Herald's tables in it): refused, nothing changed.
    refused = run(first, "db", "restore", str(dump), code=1)
    assert "not empty" in refused.output
    assert "herald db copy" in refused.output
    assert found(first, "zebra") == [Z["title"]]

    # An empty database another session uses: refused.
    busy = new_pg_database()
    with psycopg.connect(libpq(busy)):
        refused = run(pg_env("busy", busy), "db", "restore", str(dump), code=1)
        assert "other sessions are connected" in refused.output

    # A new, empty one: the dump, migrated, searched from this machine's rebuilt index.
    target = new_pg_database()
    second = pg_env("first", target)  # the same machine: its index held Z
    restored = json.loads(run(second, "db", "restore", str(dump), "--json").stdout)
    assert restored["content_items"] == 1
    assert found(second, "zebra") == []
    assert found(second, "harbour cranes") == [A["title"]]
    assert json.loads(run(second, "db", "current", "--json").stdout)["up_to_date"] is True

    # A dump a newer Herald made is refused before anything is loaded.
    with psycopg.connect(libpq(source)) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999_from_a_newer_herald'")
    newer = tmp_path / "newer.dump"
    subprocess.run(["pg_dump", "--format=custom", f"--file={newer}", libpq(source)], check=True)
    empty = new_pg_database()
    refused = run(pg_env("third", empty), "db", "restore", str(newer), code=1)
    assert "which this version of Herald does not know" in refused.output.replace("\n", " ")
    with psycopg.connect(libpq(empty)) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ).fetchone()
        assert tables == (0,)
