"""`herald clusters rebuild` through the real command line."""

from __future__ import annotations

from datetime import UTC, datetime

from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.runtime import Runtime
from tests.clusters.factories import STORIES
from tests.clusters.helpers import cluster_of, clusters, store_stories

runner = CliRunner()


def test_rebuild_clusters_the_store_and_reports_progress(
    runtime: Runtime, settings: Settings
) -> None:
    stories = store_stories(runtime, start=datetime(2026, 11, 24, 6, tzinfo=UTC))
    env = {"HERALD_HOME": str(settings.home), "HERALD_DATABASE_URL": settings.resolved_database_url}
    result = runner.invoke(app, ["clusters", "rebuild"], env=env)
    assert result.exit_code == 0, result.output
    count = sum(len(ids) for ids in stories.values())
    assert f"clustered {count} items into {len(STORIES)} clusters" in result.stdout
    assert len(clusters(runtime)) == len(STORIES)
    assert None not in cluster_of(runtime).values()


def test_rebuild_is_documented_in_help() -> None:
    result = runner.invoke(app, ["clusters", "rebuild", "--help"])
    assert result.exit_code == 0
    assert "publication order" in result.stdout
