"""Entities of the knowledge base as plain values (the DB rows live in ``herald.db.models``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, get_args

EntityKind = Literal["person", "company", "organization", "product", "place", "event"]
ENTITY_KINDS: Final[tuple[str, ...]] = get_args(EntityKind)


@dataclass(frozen=True, slots=True)
class Tag:
    """A ``{key, value}`` pair such as ``ticker``/``AAPL`` or ``country``/``FR``."""

    key: str
    value: str

    def as_dict(self) -> dict[str, str]:
        return {"key": self.key, "value": self.value}


@dataclass(frozen=True, slots=True)
class EntityRecord:
    """One knowledge-base entity: what the API shows, plus where it came from."""

    id: str
    display_name: str
    entity_kind: EntityKind
    description: str = ""
    aliases: tuple[str, ...] = ()
    tags: tuple[Tag, ...] = ()
    origin: str = "seed"  # seed | import | discovered
    # active (linking knows it) | candidate (a discovered name not yet confirmed) | rejected
    status: str = "active"

    def tag_values(self, key: str) -> list[str]:
        return [tag.value for tag in self.tags if tag.key == key]

    def first_tag(self, key: str) -> str | None:
        values = self.tag_values(key)
        return values[0] if values else None

    def as_dict(self) -> dict[str, object]:
        """The JSON Lines import/export shape (the API ``entity`` shape minus ``entity_id``)."""
        return {
            "id": self.id,
            "display_name": self.display_name,
            "entity_kind": self.entity_kind,
            "description": self.description,
            "aliases": list(self.aliases),
            "tags": [tag.as_dict() for tag in self.tags],
        }


@dataclass(slots=True)
class EntityDraft:
    """A new entity proposed by linking (an unknown but confident name)."""

    id: str
    display_name: str
    entity_kind: EntityKind
    aliases: list[str] = field(default_factory=list)
    # What the text said of it: a place's region and country ("Harriman, Tennessee").
    tags: tuple[Tag, ...] = ()
    description: str = ""

    @classmethod
    def of(cls, record: EntityRecord) -> EntityDraft:
        return cls(
            record.id,
            record.display_name,
            record.entity_kind,
            list(record.aliases),
            record.tags,
            record.description,
        )

    def to_record(self) -> EntityRecord:
        return EntityRecord(
            id=self.id,
            display_name=self.display_name,
            entity_kind=self.entity_kind,
            description=self.description,
            aliases=tuple(self.aliases),
            tags=self.tags,
            origin="discovered",
            status="candidate",
        )


def is_entity_kind(value: object) -> bool:
    return isinstance(value, str) and value in ENTITY_KINDS
