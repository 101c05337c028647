"""`herald clusters rebuild` through the real command line, and its progress."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from herald.cli.main import app
from herald.clusters import service
from herald.config import Settings
from herald.runtime import Runtime
from tests.clusters.factories import STORIES
from tests.clusters.helpers import cluster_of, clusters, store_stories

runner = CliRunner()
START = datetime(2026, 11, 24, 6, tzinfo=UTC)


def test_rebuild_clusters_the_store_and_reports_progress(
    runtime: Runtime, settings: Settings
) -> None:
    stories = store_stories(runtime, start=START)
    env = {"HERALD_HOME": str(settings.home), "HERALD_DATABASE_URL": settings.resolved_database_url}
    result = runner.invoke(app, ["clusters", "rebuild"], env=env)
    assert result.exit_code == 0, result.output
    count = sum(len(ids) for ids in stories.values())
    assert result.stdout.strip() == (
        f"clustered {count} items into {len(STORIES)} clusters (0 skipped)"
    )
    # Not on a terminal (a pipe, a log): no progress bar.
    assert "clustering" not in result.stderr
    assert len(clusters(runtime)) == len(STORIES)
    assert None not in cluster_of(runtime).values()
    # On a terminal the progress bar goes to stderr (stdout stays clean): items done of all.
    again = runner.invoke(app, ["clusters", "rebuild"], env=env | {"TTY_COMPATIBLE": "1"})
    assert again.exit_code == 0, again.output
    assert "clustering" in again.stderr
    assert f"{count}/{count}" in again.stderr
    assert again.stdout == result.stdout


def test_rebuild_reports_progress_after_every_chunk(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    stories = store_stories(runtime, start=START)
    count = sum(len(ids) for ids in stories.values())
    monkeypatch.setattr(service, "REBUILD_CHUNK", 2)
    progress: list[tuple[int, int]] = []
    outcome = service.rebuild(
        runtime.sessions,
        service.get_engine(runtime),
        clock=runtime.clock,
        on_progress=lambda done, total: progress.append((done, total)),
    )
    expected = [(min(done, count), count) for done in range(2, count + 2, 2)]
    assert progress == expected
    assert outcome.clustered == count


def test_rebuild_of_an_empty_store_says_so(settings: Settings, runtime: Runtime) -> None:
    env = {"HERALD_HOME": str(settings.home), "HERALD_DATABASE_URL": settings.resolved_database_url}
    result = runner.invoke(app, ["clusters", "rebuild"], env=env)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "clustered 0 items into 0 clusters (0 skipped)"
    assert clusters(runtime) == []


def test_rebuild_is_documented_in_help() -> None:
    result = runner.invoke(app, ["clusters", "rebuild", "--help"])
    assert result.exit_code == 0
    assert "publication order" in result.stdout
