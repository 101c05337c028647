"""`herald ingest` and `herald sources` through the real CLI (SQLite and PostgreSQL)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.core.ids import stable_id
from herald.db.models.content import ContentItem
from herald.ingest.urls import canonical_url
from herald.runtime import Runtime

from .conftest import FIXTURES, ecbplus_docs

DOCS = ecbplus_docs()


@pytest.fixture
def cli_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HERALD_HOME", str(settings.home))
    monkeypatch.setenv("HERALD_DATABASE_URL", settings.resolved_database_url)
    return settings


def _lines(doc_ids: list[str], **overrides: object) -> str:
    rows = []
    for doc_id in doc_ids:
        doc = DOCS[doc_id]
        lines = doc["text"].split("\n")
        row = {
            "url": doc["source_url"],
            "media_type": "news",
            "title": lines[0],
            "published_date": "2013-09-09T10:00:00Z",
            "source": {"name": doc["source_domain"], "domain": doc["source_domain"]},
            "body": "\n".join(lines[1:]),
        } | overrides
        rows.append(json.dumps(row))
    return "\n".join(rows) + "\n"


def _count(runtime: Runtime) -> int:
    with runtime.sessions.read() as session:
        return int(session.execute(select(func.count()).select_from(ContentItem)).scalar_one())


def test_ingest_reports_line_numbers_and_is_idempotent(
    cli_env: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        _lines(["24_1ecbplus", "24_5ecbplus"]) + '{"url": 1}\n' + _lines(["24_10ecbplus"])
    )
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(path), "--no-wait", "--json"])
    assert result.exit_code == 2, result.output
    summary = json.loads(result.stdout)
    assert (summary["accepted"], summary["rejected"]) == (3, 1)
    assert summary["errors"][0]["line"] == 3
    assert summary["syndicated"] == 1  # 24_10 is an edited copy of 24_1
    assert _count(runtime) == 3

    again = runner.invoke(app, ["ingest", str(path), "--no-wait", "--json"])
    assert json.loads(again.stdout)["duplicates"] == 3

    updated = tmp_path / "updated.jsonl.gz"
    updated.write_bytes(
        gzip.compress(_lines(["24_1ecbplus"], title="Paris jewellery heist: update").encode())
    )
    result = runner.invoke(app, ["ingest", str(updated), "--no-wait", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["updated"] == 1
    assert _count(runtime) == 3


def test_ingest_feeds_and_wire_files_without_network(cli_env: Settings, runtime: Runtime) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "ingest",
            str(FIXTURES / "rss20_liftoff.xml"),
            str(FIXTURES / "ninjs_2_0_dpa_text.json"),
            "--no-fetch",
            "--no-wait",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "accepted 5, updated 0, duplicates 0, rejected 0" in result.output
    # The untitled RSS item is titled from its first sentence, and the report says so.
    assert "entry has no title; titled from its first sentence" in result.output
    with runtime.sessions.read() as session:
        kinds = sorted(session.scalars(select(ContentItem.media_type)))
    assert kinds == ["news", "news", "news", "news", "wire"]


def test_ingest_refuses_unknown_formats_and_missing_files(
    cli_env: Settings, tmp_path: Path
) -> None:
    runner = CliRunner()
    odd = tmp_path / "notes.txt"
    odd.write_text("hello")
    assert runner.invoke(app, ["ingest", str(odd), "--no-wait"]).exit_code == 1
    assert runner.invoke(app, ["ingest", str(tmp_path / "missing.jsonl")]).exit_code == 1
    assert runner.invoke(app, ["ingest", str(odd), "--format", "csv"]).exit_code == 1


def test_sources_commands(cli_env: Settings) -> None:
    runner = CliRunner()
    added = runner.invoke(
        app,
        [
            "sources",
            "add",
            "https://feeds.test/liftoff.xml",
            "--media-type",
            "news",
            "--interval",
            "30m",
            "--json",
        ],
    )
    assert added.exit_code == 0, added.output
    source = json.loads(added.stdout)
    assert source["interval_seconds"] == 1800
    assert source["last_error"] is None
    listed = json.loads(runner.invoke(app, ["sources", "list", "--json"]).stdout)
    assert [s["id"] for s in listed] == [source["id"]]
    table = runner.invoke(app, ["sources", "list"])
    assert source["id"] in table.stdout
    assert "never" in table.stdout
    assert (
        runner.invoke(
            app, ["sources", "add", "https://feeds.test/liftoff.xml", "--media-type", "news"]
        ).exit_code
        == 1
    )
    assert (
        runner.invoke(
            app, ["sources", "add", "https://feeds.test/b.xml", "--media-type", "blog"]
        ).exit_code
        == 1
    )
    assert runner.invoke(app, ["sources", "remove", source["id"]]).exit_code == 0
    assert runner.invoke(app, ["sources", "remove", source["id"]]).exit_code == 1
    assert json.loads(runner.invoke(app, ["sources", "list", "--json"]).stdout) == []
    # No empty table: it says how to add one.
    assert "herald sources add URL" in runner.invoke(app, ["sources", "list"]).stdout


@pytest.mark.slow
def test_ingest_works_while_serve_runs_on_the_same_home(
    cli_env: Settings, runtime: Runtime, tmp_path: Path, make_key: object
) -> None:
    import os
    import socket
    import subprocess
    import sys
    import threading
    import time

    import httpx

    assert callable(make_key)
    admin = make_key("acme", "admin").api_key
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = os.environ | {
        "HERALD_HOME": str(cli_env.home),
        "HERALD_DATABASE_URL": cli_env.resolved_database_url,
        "HERALD_LOG_LEVEL": "WARNING",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "herald.cli.main", "serve", "--no-worker", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        path = tmp_path / "cli.jsonl"
        path.write_text(
            _lines(["29_1ecbplus", "29_5ecbplus", "29_9ecbplus", "24_1ecbplus", "24_5ecbplus"])
        )
        api_results: list[int] = []

        def post_through_the_server() -> None:
            for doc_id in ("22_12ecbplus", "22_14ecbplus", "1_10ecbplus", "1_11ecbplus"):
                response = httpx.post(
                    f"{base}/v1/admin/content",
                    headers={"x-api-key": admin, "content-type": "application/x-ndjson"},
                    content=_lines([doc_id]),
                    timeout=30,
                )
                api_results.append(response.status_code)

        writer = threading.Thread(target=post_through_the_server)
        writer.start()
        result = CliRunner().invoke(app, ["ingest", str(path), "--no-wait", "--json"])
        writer.join()
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["accepted"] == 5
        assert api_results == [200] * 4
        assert _count(runtime) == 9
        # The server sees what the CLI stored.
        cli_item = stable_id("cnt", "url:" + canonical_url(DOCS["29_1ecbplus"]["source_url"]))
        response = httpx.get(
            f"{base}/v1/content/{cli_item}", headers={"x-api-key": admin}, timeout=10
        )
        assert response.status_code == 200
        assert response.json()["content_item"]["source"]["domain"] == "yahoo.com"
    finally:
        server.terminate()
        server.wait(timeout=30)
