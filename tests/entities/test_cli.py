"""`herald entities import`, `herald entities seed` and `herald enrich --rebuild`."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import Entity
from herald.runtime import Runtime
from tests.enrich.factories import make_item

runner = CliRunner()


def env_for(settings: Settings, **extra: str) -> dict[str, str]:
    return {
        "HERALD_HOME": str(settings.home),
        "HERALD_DATABASE_URL": settings.resolved_database_url,
        "HERALD_ENTITY_SEED": settings.entity_seed,
        **extra,
    }


def test_import_reports_bad_lines_and_imports_the_rest(
    settings: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    path = tmp_path / "entities.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(
                    {
                        "key": "crm:1",
                        "display_name": "Zephyr Dynamics",
                        "entity_kind": "company",
                        "aliases": ["Zephyr"],
                        "tags": [{"key": "ticker", "value": "ZPHR"}],
                    }
                ),
                '{"display_name": "Broken"',
                json.dumps({"display_name": "Nobody", "entity_kind": "alien"}),
                json.dumps({"display_name": "Lake Tahoe", "entity_kind": "place"}),
            ]
        )
    )
    result = runner.invoke(app, ["entities", "import", str(path)], env=env_for(settings))
    assert result.exit_code == 0, result.output
    assert "imported 2 entities, skipped 2 lines" in result.stdout
    assert "line 2" in result.output
    assert "line 3" in result.output
    with runtime.sessions.read() as session:
        names = set(session.scalars(select(Entity.display_name).where(Entity.origin == "import")))
    assert names == {"Zephyr Dynamics", "Lake Tahoe"}
    again = runner.invoke(app, ["entities", "import", str(path)], env=env_for(settings))
    assert again.exit_code == 0
    with runtime.sessions.read() as session:
        assert len(session.scalars(select(Entity).where(Entity.origin == "import")).all()) == 2


def test_import_of_only_bad_lines_fails(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("nonsense\n")
    result = runner.invoke(app, ["entities", "import", str(path)], env=env_for(settings))
    assert result.exit_code == 1


def test_seed_then_rebuild_enriches_every_item(settings: Settings, runtime: Runtime) -> None:
    env = env_for(settings, HERALD_EMBEDDING_MODEL="herald-hashing")
    seeded = runner.invoke(app, ["entities", "seed"], env=env)
    assert seeded.exit_code == 0
    assert "seeded" in seeded.stdout
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        ids = [
            make_item(
                session,
                title=f"Apple and Microsoft report results {n}",
                body="Apple said its iPhone sales rose. Microsoft said cloud revenue grew.",
                published_at=now - timedelta(hours=n + 1),
                now=now,
            ).id
            for n in range(3)
        ]
    result = runner.invoke(app, ["enrich", "--rebuild"], env=env)
    assert result.exit_code == 0, result.output
    assert "queued 3 items" in result.output
    assert "enriched 3 items" in result.stdout
    assert "0 enrichment jobs still pending" in result.stdout
    with runtime.sessions.read() as session:
        items = session.scalars(select(ContentItem).where(ContentItem.id.in_(ids))).all()
        assert all(i.enriched_at is not None and i.key_points for i in items)
        linked = set(session.scalars(select(ContentEntity.entity_id)))
        names = set(session.scalars(select(Entity.display_name).where(Entity.id.in_(linked))))
    assert {"Apple Inc.", "Microsoft"} <= names
