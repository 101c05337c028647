"""Deleting by source domain and date, in batches: durable per batch, idempotent when re-run."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.content.deletion import ContentSelector, count_matching, delete_content
from herald.db.models.content import ContentDeletion, ContentItem
from herald.runtime import Runtime
from tests.content.test_purge import env_for

runner = CliRunner()


class Interrupted(Exception):
    pass


def _live(runtime: Runtime) -> set[str]:
    with runtime.sessions.read() as session:
        return set(session.scalars(select(ContentItem.id)))


def test_an_interrupted_deletion_recorded_what_it_did_and_a_rerun_finishes(
    runtime: Runtime, stored: list[str]
) -> None:
    with runtime.sessions.read() as session:
        assert count_matching(session, ContentSelector(source_domain="example.org")) == 1

    def stop(_count: int) -> None:
        raise Interrupted  # the process dies after its first batch committed

    by_date = ContentSelector(published_before=runtime.clock.now())  # all three items
    with pytest.raises(Interrupted):
        delete_content(
            runtime.sessions,
            by_date,
            actor="test",
            clock=runtime.clock,
            batch_size=1,
            on_batch=stop,
        )
    assert len(_live(runtime)) == 2
    with runtime.sessions.read() as session:
        first = session.scalars(select(ContentDeletion)).one()
    assert (first.deleted_count, first.status) == (1, "running")

    report = delete_content(
        runtime.sessions, by_date, actor="test", clock=runtime.clock, batch_size=1
    )
    assert report.deleted == 2
    assert _live(runtime) == set()
    with runtime.sessions.read() as session:
        second = session.get(ContentDeletion, report.deletion_id)
        assert second is not None
    assert (second.deleted_count, second.status) == (2, "done")
    assert second.finished_at is not None


def test_delete_by_source_domain_and_date_from_the_command_line(
    runtime: Runtime, stored: list[str]
) -> None:
    env = env_for(runtime)
    args = ["content", "delete", "--source-domain", "https://www.Example.NET/news"]
    later = runner.invoke(app, [*args, "--published-before", "2026-11-24", "--json"], env=env)
    assert later.exit_code == 0, later.output
    assert json.loads(later.stdout)["matching"] == 0  # published on the 24th, not before

    dry = runner.invoke(app, [*args, "--published-before", "2026-11-25", "--json"], env=env)
    assert json.loads(dry.stdout) == {
        "dry_run": True,
        "matching": 1,
        "selector": {"source_domain": "example.net", "published_before": "2026-11-25T00:00:00Z"},
    }
    done = runner.invoke(
        app, [*args, "--published-before", "2026-11-25", "--yes", "--no-purge"], env=env
    )
    assert done.exit_code == 0, done.output
    assert "deleted 1 item(s)" in done.stdout
    assert _live(runtime) == set(stored[:2])
