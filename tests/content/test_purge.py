"""`herald content delete` and `purge`: after the command, no file under HERALD_HOME holds the
deleted body's text (SQLite database, write-ahead log, Tantivy index, vector snapshots)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from herald.cli.main import app
from herald.runtime import Runtime
from herald.search.lexical import TEXT_FIELDS, LexicalIndex
from tests.content.conftest import ITEMS, PHRASE, WORDS, files_holding

runner = CliRunner()


def env_for(runtime: Runtime) -> dict[str, str]:
    return {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": "none",
    }


def index_terms(home: Path) -> set[str]:
    """Which of the phrase's words the on-disk lexical index still knows (in any text field)."""
    searcher = LexicalIndex(home / "index" / "lexical").searcher()
    return {
        word
        for word in WORDS
        for field in TEXT_FIELDS
        if searcher.terms_with_prefix(field, word[:6])
    }


def test_delete_by_url_then_no_file_holds_the_text(
    runtime: Runtime, stored: list[str], client: TestClient, auth: dict[str, str]
) -> None:
    home = runtime.settings.home
    found = client.post(
        "/v1/content/search",
        json={"query": PHRASE, "start_date": "2026-11-20", "end_date": "2026-11-25"},
        headers=auth,
    )
    assert [r["content_item"]["id"] for r in found.json()["results"]] == [stored[0]]
    # The index's term dictionary is compressed, so its words are looked up in it directly
    # (a deleted document's terms stay there until its segment is rewritten).
    assert index_terms(home) == set(WORDS)
    if runtime.settings.is_sqlite:
        assert files_holding(home, [PHRASE, *WORDS]), "the purge check would find nothing"
    env = env_for(runtime)

    dry = runner.invoke(
        app, ["content", "delete", "--url", str(ITEMS[0]["url"]), "--json"], env=env
    )
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout) == {
        "dry_run": True,
        "matching": 1,
        "selector": {"url": ITEMS[0]["url"]},
    }
    assert client.get(f"/v1/content/{stored[0]}", headers=auth).status_code == 200

    done = runner.invoke(
        app, ["content", "delete", "--url", str(ITEMS[0]["url"]), "--yes", "--json"], env=env
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["deleted"] == 1
    assert report["purge"]["checkpoint_complete"] is True
    assert client.get(f"/v1/content/{stored[0]}", headers=auth).status_code == 404
    assert files_holding(home, [PHRASE, *WORDS]) == []
    assert index_terms(home) == set()

    again = runner.invoke(
        app, ["content", "delete", "--url", str(ITEMS[0]["url"]), "--yes", "--json"], env=env
    )
    assert json.loads(again.stdout)["deleted"] == 0  # idempotent: nothing left to delete
    dry_again = runner.invoke(app, ["content", "delete", "--url", str(ITEMS[0]["url"])], env=env)
    assert dry_again.stdout.strip() == "no item matches: nothing to delete"  # not "run again"

    listed = runner.invoke(app, ["content", "deletions", "--json"], env=env)
    records = json.loads(listed.stdout)["deletions"]
    assert [(r["deleted_count"], r["status"], r["selector"]) for r in records] == [
        (1, "done", {"url": ITEMS[0]["url"]})
    ]
    assert records[0]["actor"].startswith("cli")
    assert PHRASE not in listed.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "exactly one of"),
        (["cnt_x", "--url", "https://a.example.com/"], "exactly one of"),
        (["--url", "ftp://a.example.com/x"], "--url"),
        (["--source-domain", "co.uk"], "--source-domain"),
        (["--source-domain", "example.com", "--published-before", "soon"], "--published-before"),
        (["cnt_x", "--published-before", "2026-01-01"], "--source-domain"),
    ],
)
def test_bad_selectors_are_refused(runtime: Runtime, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["content", "delete", *args], env=env_for(runtime))
    assert result.exit_code == 2
    assert message in result.output


def test_without_purge_the_text_stays_until_purge_runs(
    runtime: Runtime, stored: list[str], client: TestClient, auth: dict[str, str]
) -> None:
    home = runtime.settings.home
    window = {"start_date": "2026-11-20", "end_date": "2026-11-25"}
    env = env_for(runtime)
    done = runner.invoke(app, ["content", "delete", stored[0], "--yes", "--no-purge"], env=env)
    assert done.exit_code == 0, done.output
    assert "deleted 1 item(s)" in done.stdout
    assert "herald content purge" in done.output
    # Gone from every read at once (this search catches the local index up) ...
    found = client.post("/v1/content/search", json={"query": PHRASE, **window}, headers=auth)
    assert found.json()["results"] == []
    # ... but its terms stay in the index files until a purge rewrites them.
    assert index_terms(home) == set(WORDS)

    purged = runner.invoke(app, ["content", "purge", "--json"], env=env)
    assert purged.exit_code == 0, purged.output
    report = json.loads(purged.stdout)
    assert report["index_items"] >= 2  # the live items (and the removal) applied again
    assert report["checkpoint_complete"] is True
    assert report["vacuumed"] is runtime.settings.is_sqlite
    assert index_terms(home) == set()
    assert files_holding(home, [PHRASE, *WORDS]) == []
    # The other items are still found after the rewrite.
    found = client.post(
        "/v1/content/search", json={"query": "European Central Bank", **window}, headers=auth
    )
    assert {r["content_item"]["id"] for r in found.json()["results"]} == set(stored[1:])
