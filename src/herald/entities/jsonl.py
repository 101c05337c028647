"""The entity import format: JSON Lines, one entity per line (also the bundled seed's format).

Fields: ``display_name`` and ``entity_kind`` (required); ``id`` (``ent_...``; when absent it is
derived from ``key``, or from the kind and name, so re-importing a file updates the same
entities); ``key`` (a stable source key such as ``geonames:2988507``); ``description``;
``aliases`` (strings); ``tags`` (``{"key", "value"}`` objects). Unknown fields are an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from herald.core.ids import stable_id
from herald.entities.model import ENTITY_KINDS, EntityKind, EntityRecord, Tag
from herald.entities.names import alias_key, id_key

_FIELDS = frozenset({"id", "key", "display_name", "entity_kind", "description", "aliases", "tags"})
_ID = re.compile(r"^ent_[0-9a-z]{1,36}$")
MAX_NAME = 300
MAX_ALIASES = 200
MAX_TAGS = 100


class EntityLineError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class ImportProblem:
    line: int
    message: str


def entity_id_for(kind: str, display_name: str, key: str | None = None) -> str:
    """The stable id of an entity: from its source key, else from its kind and name."""
    return stable_id("ent", key if key else f"{kind}:{id_key(display_name)}")


def parse_entity_line(line: str, number: int, *, origin: str = "import") -> EntityRecord:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EntityLineError(number, f"not valid JSON ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise EntityLineError(number, "each line must be a JSON object")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        raise EntityLineError(number, f"unknown field(s): {', '.join(unknown)}")
    name = raw.get("display_name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise EntityLineError(number, f"display_name must be a non-empty string (max {MAX_NAME})")
    kind = raw.get("entity_kind")
    if kind not in ENTITY_KINDS:
        raise EntityLineError(number, f"entity_kind must be one of {', '.join(ENTITY_KINDS)}")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise EntityLineError(number, "description must be a string")
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise EntityLineError(number, "aliases must be a list of strings")
    if len(aliases) > MAX_ALIASES:
        raise EntityLineError(number, f"at most {MAX_ALIASES} aliases")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or len(tags) > MAX_TAGS:
        raise EntityLineError(number, f"tags must be a list of at most {MAX_TAGS} objects")
    parsed_tags = []
    for tag in tags:
        if (
            not isinstance(tag, dict)
            or set(tag) != {"key", "value"}
            or not isinstance(tag["key"], str)
            or not isinstance(tag["value"], str)
            or not tag["key"]
        ):
            raise EntityLineError(number, 'each tag must be {"key": string, "value": string}')
        parsed_tags.append(Tag(tag["key"], tag["value"]))
    key = raw.get("key")
    if key is not None and (not isinstance(key, str) or not key):
        raise EntityLineError(number, "key must be a non-empty string")
    entity_id = raw.get("id")
    if entity_id is None:
        entity_id = entity_id_for(str(kind), name, key)
    elif not isinstance(entity_id, str) or not _ID.match(entity_id):
        raise EntityLineError(
            number, "id must look like ent_ followed by lower-case letters/digits"
        )
    clean_name = " ".join(name.split())
    seen = {alias_key(clean_name)}
    clean_aliases = []
    for alias in aliases:
        alias = " ".join(alias.split())
        if alias and alias_key(alias) not in seen:
            seen.add(alias_key(alias))
            clean_aliases.append(alias)
    entity_kind: EntityKind = kind
    return EntityRecord(
        id=entity_id,
        display_name=clean_name,
        entity_kind=entity_kind,
        description=description.strip(),
        aliases=tuple(clean_aliases),
        tags=tuple(dict.fromkeys(parsed_tags)),
        origin=origin,
    )


def parse_entity_lines(
    lines: Iterable[str], *, origin: str = "import"
) -> Iterator[EntityRecord | ImportProblem]:
    """Parse a whole file: good lines give records, bad lines give problems (and are skipped)."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield parse_entity_line(line, number, origin=origin)
        except EntityLineError as exc:
            yield ImportProblem(exc.line, exc.message)
