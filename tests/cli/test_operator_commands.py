"""`herald --version`, `--json` on the commands that print data, and a read-only
`herald index status`, on both databases."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import text
from typer.testing import CliRunner

import herald
from herald.cli.main import app
from herald.config import Settings
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.runtime import Runtime
from tests.cli.conftest import corpus

runner = CliRunner()


def env_for(settings: Settings) -> dict[str, str]:
    return {
        "HERALD_HOME": str(settings.home),
        "HERALD_DATABASE_URL": settings.resolved_database_url,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": settings.entity_seed,
    }


def run_json(settings: Settings, *args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"], env=env_for(settings))
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def ingest(settings: Settings, body: bytes) -> None:
    runtime = Runtime(settings)
    try:
        outcomes = JsonLinesAdapter().parse(Document(content=body, origin="test"))
        ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock, chunk_size=100)
    finally:
        runtime.close()


def snapshot(settings: Settings) -> tuple[Any, ...]:
    """Everything `index status` could change: index files, the projection row, the jobs."""
    files = {
        str(path.relative_to(settings.home)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(settings.index_dir.rglob("*"))
        if path.is_file()
    }
    runtime = Runtime(settings)
    try:
        with runtime.sessions.read() as session:
            rows = tuple(
                tuple(session.execute(text(sql)).all())
                for sql in (
                    "SELECT name, applied_seq FROM search_projections ORDER BY name",
                    "SELECT id, change_seq FROM content_items ORDER BY id",
                    "SELECT count(*) FROM jobs",
                )
            )
    finally:
        runtime.close()
    return settings.index_dir.exists(), files, rows


def test_version_is_the_package_version() -> None:
    herald_bin = Path(sys.executable).with_name("herald")
    result = subprocess.run([herald_bin, "--version"], capture_output=True, text=True, check=True)
    assert result.stdout == f"herald {herald.__version__}\n"


def test_index_status_changes_nothing_and_rebuild_makes_it_current(
    cli_settings: Settings,
) -> None:
    ingest(cli_settings, corpus_for(cli_settings))
    before = snapshot(cli_settings)
    status = run_json(cli_settings, "index", "status")
    assert status["pending"] == 3
    assert status["current"] is False
    assert status["backend"] == "embedded"  # on PostgreSQL too: a local index synced from it
    assert snapshot(cli_settings) == before  # nothing applied, saved or created
    human = runner.invoke(app, ["index", "status"], env=env_for(cli_settings))
    assert "3 " in human.stdout
    assert snapshot(cli_settings) == before

    rebuilt = run_json(cli_settings, "index", "rebuild")
    assert rebuilt["items"] == 3
    # The progress bar shows on a terminal only, on stderr.
    on_terminal = runner.invoke(
        app, ["index", "rebuild"], env=env_for(cli_settings) | {"TTY_COMPATIBLE": "1"}
    )
    assert "done" in on_terminal.stderr
    assert "3 items" in on_terminal.stdout
    piped = runner.invoke(app, ["index", "rebuild"], env=env_for(cli_settings))
    assert piped.stderr == ""
    status = run_json(cli_settings, "index", "status")
    assert status["current"] is True
    assert status["pending"] == 0
    assert status["applied_seq"] == status["latest_seq"] > 0

    # A new item: pending again, and the status still leaves it pending.
    ingest(cli_settings, extra_item())
    before = snapshot(cli_settings)
    assert run_json(cli_settings, "index", "status")["pending"] == 1
    assert snapshot(cli_settings) == before


def test_json_outputs_parse(cli_settings: Settings) -> None:
    seeded = run_json(cli_settings, "entities", "seed")
    assert seeded == {"seeded": 7}
    ingest(cli_settings, corpus_for(cli_settings))
    enriched = run_json(cli_settings, "enrich")
    assert enriched["enriched"] == 3
    assert enriched["pending"] == 0
    clustered = run_json(cli_settings, "clusters", "rebuild")
    assert set(clustered) == {"clustered", "clusters", "skipped"}
    assert clustered["clustered"] >= 2
    current = run_json(cli_settings, "db", "current")
    assert current["up_to_date"] is True
    assert current["current"] == current["latest"]
    created = run_json(cli_settings, "keys", "create", "--workspace", "ops")
    [listed] = run_json(cli_settings, "keys", "list", "--workspace", "ops")["keys"]
    assert created["api_key"].startswith(listed["key_prefix"])
    assert listed["revoked_at"] is None
    found = run_json(cli_settings, "search", "earthquake")["results"]
    assert {r["title"] for r in found} >= {"Earthquake shakes the coast of Chile"}
    entities = cli_settings.home / "entities.jsonl"
    entities.write_text(
        json.dumps(
            {
                "id": "ent_testacme000000000000",
                "key": "test:acme",
                "entity_kind": "organization",
                "display_name": "Acme",
            }
        )
        + "\nnot json\n"
    )
    imported = run_json(cli_settings, "entities", "import", str(entities))
    assert imported["imported"] == 1
    assert [p["line"] for p in imported["skipped"]] == [2]


def corpus_for(settings: Settings) -> bytes:
    runtime = Runtime(settings)
    try:
        return corpus(runtime)
    finally:
        runtime.close()


def extra_item() -> bytes:
    return json.dumps(
        {
            "url": "https://news.example.com/later",
            "media_type": "news",
            "title": "A later story about rates",
            "published_date": "2026-11-20T10:00:00Z",
            "source": {"name": "Example", "domain": "news.example.com"},
            "body": "A later story about interest rates. " * 3,
        }
    ).encode()


def test_an_unreachable_database_is_one_plain_message_not_a_traceback(tmp_path: Path) -> None:
    herald_bin = Path(sys.executable).with_name("herald")
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(tmp_path / "home"),
        "HERALD_DATABASE_URL": f"postgresql://herald:s3cret@127.0.0.1:{port}/herald",
    }
    result = subprocess.run(
        [herald_bin, "db", "upgrade"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"cannot use the database postgresql+psycopg://herald:***@127.0.0.1:{port}/herald: "
        "connection failed:"
    )
    assert "Connection refused" in result.stderr
    assert "s3cret" not in result.stderr
    assert "Traceback" not in result.stderr
    # A password given as the URL's parameter is not printed either.
    env["HERALD_DATABASE_URL"] = f"postgresql://herald@127.0.0.1:{port}/herald?password=s3cret"
    result = subprocess.run(
        [herald_bin, "db", "upgrade"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "cannot use the database" in result.stderr
    assert "s3cret" not in result.stderr
