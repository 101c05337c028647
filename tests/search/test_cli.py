"""`herald search` and `herald index rebuild|status` through the real command line (in-process)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from herald.cli.common import stdout
from herald.cli.main import app
from herald.runtime import Runtime
from tests.search.support import put_item

runner = CliRunner()
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture
def backend() -> str:
    return "sqlite"


def env_for(runtime: Runtime) -> dict[str, str]:
    # The hashing embedder keeps the command from loading the neural model in this process;
    # lexical retrieval, filters and the table are what is tested here.
    return {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": "none",
        "COLUMNS": "200",
    }


def test_search_prints_a_table_and_rebuild_reports(
    search_runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The console's width is fixed when it is created (COLUMNS at import time, else 80): make
    # it wide so the table's cells are not folded, whatever imported the module first.
    monkeypatch.setattr(stdout, "_width", 200)
    put_item(
        search_runtime,
        "https://news.example.com/ecb",
        title="European Central Bank raises interest rates",
        body="The ECB raised its key interest rate to fight inflation.",
        published_at=datetime.now(UTC) - timedelta(days=1),
        domain="news.example.com",
    )
    env = env_for(search_runtime)
    result = runner.invoke(app, ["search", "ECB interest rates", "--media-type", "news"], env=env)
    assert result.exit_code == 0, result.output
    assert "European Central Bank raises interest rates" in result.stdout
    assert "news.example.com" in result.stdout
    assert "1 results" in result.stdout
    # At 80 columns the table would cut the date and the domain short (`2026-11-…`): each
    # result is a block of lines instead, every value whole.
    monkeypatch.setattr(stdout, "_width", 80)
    narrow = runner.invoke(app, ["search", "ECB interest rates"], env=env)
    assert narrow.exit_code == 0, narrow.output
    assert "…" not in narrow.stdout
    published = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    for line in (
        "1 results for 'ECB interest rates'",
        f"  published: {published}",
        "  source:    news.example.com",
        "  title:     European Central Bank raises interest rates",
    ):
        assert line in narrow.stdout, narrow.stdout

    wire_only = runner.invoke(app, ["search", "ECB", "--media-type", "wire", "--json"], env=env)
    assert wire_only.exit_code == 0, wire_only.output
    assert '"results": []' in wire_only.stdout

    bad = runner.invoke(
        app, ["search", "ECB", "--domain", "a.com", "--exclude-domain", "b.com"], env=env
    )
    assert bad.exit_code == 1
    assert "domain_filter_conflict" in bad.output

    rebuilt = runner.invoke(app, ["index", "rebuild"], env=env)
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "rebuilt the embedded search index: 1 items" in rebuilt.stdout
    status = runner.invoke(app, ["index", "status"], env=env)
    assert status.exit_code == 0, status.output
    assert "current" in status.stdout


@pytest.mark.parametrize("marker", ['{"schema_version": 1}', ""])
def test_rebuild_replaces_an_index_this_version_cannot_open(
    search_runtime: Runtime, marker: str
) -> None:
    """An index of an older schema (after an upgrade), or whose schema marker a crash left
    empty: every search refuses it and says to run `herald index rebuild`, which must then
    replace it rather than refuse it too."""
    put_item(
        search_runtime,
        "https://news.example.com/ecb",
        title="European Central Bank raises interest rates",
        published_at=NOW - timedelta(days=1),
    )
    env = env_for(search_runtime)
    assert runner.invoke(app, ["index", "rebuild"], env=env).exit_code == 0
    (search_runtime.settings.index_dir / "lexical" / "herald_lexical.json").write_text(marker)
    refused = runner.invoke(app, ["index", "status"], env=env)
    assert "cannot be used" in refused.stdout
    assert "herald index rebuild" in refused.stdout

    rebuilt = runner.invoke(app, ["index", "rebuild"], env=env)
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "rebuilt the embedded search index: 1 items" in rebuilt.stdout
    status = runner.invoke(app, ["index", "status"], env=env)
    assert "is current" in status.stdout, status.output
