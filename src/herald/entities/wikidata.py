"""Entities from a Wikidata JSON dump (``latest-all.json.gz`` or a subset in the same format).

The dump is one JSON array with one entity a line (``[``, then ``{...},`` lines, then ``]``); it
is read line by line, so a dump of any size streams through in constant memory. An entity is
kept when one of its "instance of" (P31) classes is in the class map (which also gives its kind)
and it has at least ``min_sitelinks`` site links (how many wikis have a page about it: a good
measure of how well known it is). What is kept: the label and description in the chosen
language, its aliases, the Wikipedia title (tag ``wikipedia``, as a URL), the Wikidata id (tag
``wikidata``, also the stable key, so a re-import updates the same entities) and identifiers:
ticker (P249), ISIN (P946), ISO 3166-1 alpha-2 country code (P297, tag ``country``), population
(P1082) and the number of site links (tag ``sitelinks``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from herald.entities.jsonl import ImportProblem, entity_id_for
from herald.entities.model import EntityKind, EntityRecord, Tag
from herald.entities.names import alias_key

# "Instance of" classes and the kind they give (direct P31 values: the dump has no subclass
# closure, so the common specific classes are listed). Place types feed the linking prior.
DEFAULT_CLASSES: Final[Mapping[str, tuple[EntityKind, str | None]]] = MappingProxyType(
    {
        "Q5": ("person", None),  # human
        "Q4830453": ("company", None),  # business
        "Q783794": ("company", None),  # company
        "Q891723": ("company", None),  # public company
        "Q6881511": ("company", None),  # enterprise
        "Q43229": ("organization", None),  # organization
        "Q484652": ("organization", None),  # international organization
        "Q7278": ("organization", None),  # political party
        "Q327333": ("organization", None),  # government agency
        "Q3918": ("organization", None),  # university
        "Q11032": ("organization", None),  # newspaper
        "Q1110794": ("organization", None),  # daily newspaper
        "Q476028": ("organization", None),  # association football club
        "Q6256": ("place", "country"),  # country
        "Q3624078": ("place", "country"),  # sovereign state
        "Q515": ("place", "city"),  # city
        "Q1549591": ("place", "city"),  # big city
        "Q1637706": ("place", "city"),  # city with millions of inhabitants
        "Q5119": ("place", "city"),  # capital
        "Q3957": ("place", "city"),  # town
        "Q35657": ("place", "region"),  # state of the United States
        "Q10864048": ("place", "region"),  # first-level administrative division
        "Q82794": ("place", "region"),  # geographic region
        "Q1656682": ("event", None),  # event
    }
)
_IDENTIFIERS: Final = {"P249": "ticker", "P946": "isin", "P297": "country"}


@dataclass(frozen=True, slots=True)
class WikidataFilter:
    classes: Mapping[str, tuple[EntityKind, str | None]] = field(
        default_factory=lambda: DEFAULT_CLASSES
    )
    min_sitelinks: int = 0
    language: str = "en"


def is_wikidata_dump(first_line: str) -> bool:
    """Whether a file starts like a Wikidata JSON dump (an array, or an entity object)."""
    head = first_line.lstrip()
    return head.startswith("[") or (head.startswith("{") and '"claims"' in head)


def read_wikidata(
    lines: Iterable[str], wanted: WikidataFilter | None = None
) -> Iterator[EntityRecord | ImportProblem]:
    """Entities of a dump that pass the filter; a line that is not an entity is a problem."""
    wanted = wanted or WikidataFilter()
    for number, line in enumerate(lines, start=1):
        text = line.strip().rstrip(",")
        if not text or text in ("[", "]"):
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            yield ImportProblem(number, f"not a Wikidata entity: invalid JSON ({exc.msg})")
            continue
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            yield ImportProblem(number, "not a Wikidata entity: expected an object with an id")
            continue
        record = _record(raw, wanted)
        if record is not None:
            yield record


def _record(raw: dict[str, Any], wanted: WikidataFilter) -> EntityRecord | None:
    claims = raw.get("claims") or {}
    kind_and_type = next(
        (wanted.classes[c] for c in _item_values(claims, "P31") if c in wanted.classes), None
    )
    sitelinks = raw.get("sitelinks") or {}
    if kind_and_type is None or len(sitelinks) < wanted.min_sitelinks:
        return None
    name = _text(raw.get("labels"), wanted.language)
    if not name:
        return None
    kind, place_type = kind_and_type
    qid: str = raw["id"]
    seen = {alias_key(name)}
    aliases = []
    for alias in _texts(raw.get("aliases"), wanted.language):
        if alias_key(alias) not in seen:
            seen.add(alias_key(alias))
            aliases.append(alias)
    tags = [Tag("wikidata", qid)]
    wiki = sitelinks.get(f"{wanted.language}wiki")
    if isinstance(wiki, dict) and isinstance(wiki.get("title"), str):
        title = wiki["title"].replace(" ", "_")
        tags.append(Tag("wikipedia", f"https://{wanted.language}.wikipedia.org/wiki/{title}"))
    if place_type:
        tags.append(Tag("place_type", place_type))
    for prop, key in _IDENTIFIERS.items():
        tags.extend(Tag(key, v) for v in _string_values(claims, prop))
    population = _quantities(claims, "P1082")
    if population:
        tags.append(Tag("population", str(max(population))))
    tags.append(Tag("sitelinks", str(len(sitelinks))))
    tags.append(Tag("source", "wikidata"))
    return EntityRecord(
        id=entity_id_for(kind, name, f"wikidata:{qid}"),
        display_name=" ".join(name.split()),
        entity_kind=kind,
        description=_text(raw.get("descriptions"), wanted.language),
        aliases=tuple(aliases[:200]),
        tags=tuple(dict.fromkeys(tags)),
        origin="import",
    )


def _text(values: Any, language: str) -> str:
    if not isinstance(values, dict):
        return ""
    for lang in (language, "mul"):
        value = values.get(lang)
        if isinstance(value, dict) and isinstance(value.get("value"), str):
            return str(value["value"]).strip()
    return ""


def _texts(values: Any, language: str) -> list[str]:
    if not isinstance(values, dict):
        return []
    out = []
    for lang in (language, "mul"):
        for value in values.get(lang) or []:
            if isinstance(value, dict) and isinstance(value.get("value"), str):
                out.append(" ".join(value["value"].split()))
    return [a for a in out if a]


def _main_values(claims: dict[str, Any], prop: str) -> Iterator[Any]:
    for statement in claims.get(prop) or []:
        if not isinstance(statement, dict) or statement.get("rank") == "deprecated":
            continue
        snak = statement.get("mainsnak") or {}
        if snak.get("snaktype", "value") == "value" and isinstance(snak.get("datavalue"), dict):
            yield snak["datavalue"].get("value")


def _item_values(claims: dict[str, Any], prop: str) -> list[str]:
    return [v["id"] for v in _main_values(claims, prop) if isinstance(v, dict) and "id" in v]


def _string_values(claims: dict[str, Any], prop: str) -> list[str]:
    return [v.strip() for v in _main_values(claims, prop) if isinstance(v, str) and v.strip()]


def _quantities(claims: dict[str, Any], prop: str) -> list[int]:
    out = []
    for value in _main_values(claims, prop):
        try:
            out.append(int(float(value["amount"])))
        except (TypeError, KeyError, ValueError):
            continue
    return out
