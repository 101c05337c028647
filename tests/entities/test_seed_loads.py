"""A seed file is loaded once; a changed seed (an upgrade's) adds the entities missing and
corrects its own, never an operator's."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import delete, select

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.entity import Entity, EntitySeedLoad
from herald.entities.jsonl import entity_id_for
from herald.entities.service import import_entities, seed_knowledge_base
from herald.runtime import Runtime


def write_seed(path: Path, entities: dict[str, str]) -> None:
    """A seed in the import format: display name -> description."""
    lines = [
        json.dumps(
            {
                "key": f"test:{name.lower()}",
                "display_name": name,
                "entity_kind": "place",
                "description": description,
            }
        )
        for name, description in entities.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def place_id(name: str) -> str:
    return entity_id_for("place", name, f"test:{name.lower()}")


def descriptions(runtime: Runtime) -> dict[str, str]:
    with runtime.sessions.read() as session:
        rows = session.execute(select(Entity.display_name, Entity.description)).all()
    return {row.display_name: row.description for row in rows}


def test_a_seed_is_loaded_once_and_a_changed_seed_adds_what_is_missing(
    settings: Settings, clock: FrozenClock, tmp_path: Path
) -> None:
    seed = tmp_path / "seed.jsonl"
    write_seed(seed, {"Aldor": "A town.", "Brenna": "A river town.", "Dunmore": "A vilage."})
    runtime = Runtime(settings.model_copy(update={"entity_seed": str(seed)}), clock=clock)
    try:
        assert seed_knowledge_base(runtime) == 3
        # An operator's edit of a seed entity, and one deleted by hand.
        edited = json.dumps(
            {
                "id": place_id("Aldor"),
                "display_name": "Aldor",
                "entity_kind": "place",
                "description": "Our office town.",
            }
        )
        with runtime.sessions.write() as session:
            import_entities(session, [edited], now=clock.now())
            session.execute(delete(Entity).where(Entity.id == place_id("Brenna")))
        # The same file again: not read again (what was deleted stays deleted).
        assert seed_knowledge_base(runtime) == 0
        assert set(descriptions(runtime)) == {"Aldor", "Dunmore"}
        # The next release's seed: its new entities, and the deleted one, are added, and its
        # correction of an entity still as the seed wrote it is applied; the edit is kept.
        write_seed(
            seed,
            {
                "Aldor": "A market town.",
                "Brenna": "A river town.",
                "Corvin": "A port.",
                "Dunmore": "A village.",
            },
        )
        assert seed_knowledge_base(runtime) == 3
        assert descriptions(runtime) == {
            "Aldor": "Our office town.",
            "Brenna": "A river town.",
            "Corvin": "A port.",
            "Dunmore": "A village.",
        }
        assert seed_knowledge_base(runtime) == 0
        with runtime.sessions.read() as session:
            loads = session.scalars(select(EntitySeedLoad).order_by(EntitySeedLoad.loaded_at))
            assert [(load.source, load.written) for load in loads] == [
                (str(seed), 3),
                (str(seed), 3),
            ]
        # --force reads the file whatever was recorded (nothing is missing now).
        assert seed_knowledge_base(runtime, force=True) == 0
    finally:
        runtime.close()
