"""Stage 6, new entities: groups that link nowhere but are confidently named people, places,
organisations, products or events become entities of their own (``origin="discovered"``)."""

from __future__ import annotations

import re

from herald.entities import wordlists
from herald.entities.coreference import abbreviates
from herald.entities.cues import PERSON, PLACE
from herald.entities.document import (
    Choice,
    Document,
    Group,
    Kinds,
    LinkingConfig,
    Reading,
    clean_surface,
    is_demonym,
    needs_context,
)
from herald.entities.jsonl import entity_id_for
from herald.entities.kind_stage import entity_kind, new_kind, top
from herald.entities.kinds import NONE
from herald.entities.model import EntityRecord, Tag
from herald.entities.names import alias_key
from herald.entities.refusals import not_a_name, refused_as
from herald.entities.shapes import without_title
from herald.entities.vocabulary import NICKNAME, OPENING_QUOTES, ORG_KINDS


def new_entity(read: Reading, kinds: Kinds) -> Choice | None:
    """A new entity for a group that links nowhere, and its confidence, when the rules find
    it a confidently named thing; its kind is :func:`herald.entities.kind_stage.new_kind`'s."""
    kb, config, doc, group, located = read.kb, read.config, read.doc, read.group, read.located
    if is_demonym(group):
        return None  # nationalities and groups ("Icelanders") only link to known places
    name = new_name(doc, group)
    key = alias_key(name)
    if not_a_name(doc, group, name):
        return None
    group_kind, share = top(kinds)
    # How sure the kind model is that the group names a thing of that kind (0 without it).
    sure = round(share * (1.0 - kinds[NONE]), 3) if NONE in kinds else 0.0
    if sure < config.kind_threshold:
        sure = 0.0
    if located is not None and group_kind == PLACE:
        return _new_place(config, group, name, located, share)
    if kb.is_known_name(key) and not sure:
        # A known name that did not fit here is not a new entity, unless the kind model is
        # sure of its kind: a club named after its city ("Somerset won by six wickets").
        return None
    group_kind, share = new_kind(read, kinds, name)
    if group_kind == PERSON:
        name = without_title(name)
        key = alias_key(name)
    words = name.split()
    if group_kind == PERSON and len(words) < 2:
        return None  # "Reid" alone is too ambiguous to become an entity
    if refused_as(kb, doc, group, group_kind, name):
        return None
    body = [m for m in group.mentions if m.start >= doc.title_end]
    if len(words) == 1 and (
        (
            len(group.mentions) < 2
            and not sure
            and not all(m.label in ("GPE", "LOC") for m in group.mentions)
        )
        or needs_context(doc, group)
    ):
        return None
    count = len(group.mentions)
    in_title = len(body) < count
    confidence = share * mention_weight(count)
    if in_title:
        confidence += 0.1
    if group_kind == PERSON or len(words) >= 2:
        confidence += 0.1  # spaCy's multi-word names are rarely wrong
    confidence = round(min(1.0, max(confidence, sure)), 3)
    if confidence < config.new_entity_min_confidence:
        return None
    return discovered(group, group_kind, name), confidence


def new_name(doc: Document, group: Group) -> str:
    """The name a new entity of ``group`` would have: its longest frequent spelling, cleaned
    ("Storm Fred" with the "Tropical" the recogniser left out)."""
    return _storm_named_in_full(doc.text, group, clean_surface(group.name))


def _new_place(
    config: LinkingConfig, group: Group, name: str, located: EntityRecord, share: float
) -> Choice | None:
    """A place the text locates ("Harriman, Tennessee"): one mention is enough, and the
    region or country it lies in is kept with it (two Lake Counties stay apart)."""
    confidence = round(min(1.0, share * 0.8 + 0.1), 3)
    if confidence < config.new_entity_min_confidence:
        return None
    tags = []
    if located.first_tag("place_type") == "region":
        tags.append(Tag("region", located.display_name))
    country = located.first_tag("country")
    if country:
        tags.append(Tag("country", country))
    where = alias_key(located.display_name)
    record = EntityRecord(
        id=entity_id_for("place", name, f"discovered:place:{alias_key(name)}|{where}"),
        display_name=name,
        entity_kind="place",
        description=f"Place in {located.display_name}",
        tags=tuple(tags),
        origin="discovered",
    )
    return record, confidence


def mention_weight(count: int) -> float:
    """How much a new name's mentions count toward its confidence: 0.55 for one, 1.0 from
    three on."""
    return 0.55 + 0.45 * min(1.0, count / 3)


def discovered(group: Group, group_kind: str, name: str) -> EntityRecord:
    """A new entity of the kind group ``group_kind`` named ``name``."""
    kind = entity_kind(group_kind, name)
    return EntityRecord(
        id=entity_id_for(kind, name, f"discovered:{kind}:{alias_key(name)}"),
        display_name=name,
        entity_kind=kind,
        aliases=(*_national_aliases(group, name), *_short_forms(group, name))
        if kind in ORG_KINDS
        else _nicknamed(group, name),
        origin="discovered",
    )


def _storm_named_in_full(text: str, group: Group, name: str) -> str:
    """ "Storm Fred" with the "Tropical" the recogniser left out before it (a sentence's first
    word): "Tropical Storm Fred", a storm, not a person called Storm."""
    if not _STORM_CUT.match(name):
        return name
    for mention in group.mentions:
        before = _TROPICAL_BEFORE.search(text, max(0, mention.start - 16), mention.start)
        if before is not None:
            return f"{before.group(1).capitalize()} {name}"
    return name


_STORM_CUT = re.compile(r"^(?:storm|depression)\s", re.I)
_TROPICAL_BEFORE = re.compile(r"\b((?:sub|post-)?tropical)\s+$", re.I)


# How a country is written before an organisation's name (by name key: "U.S.", "U.S" and
# "US" are one), and its name in full.
_NATIONAL_PREFIXES = wordlists.mapping("national_prefixes")


# A nickname of one word: "Yogi" of "Lawrence Peter "Yogi" Berra".
_ONE_WORD = re.compile(r"[A-Z][\w.-]*")


def _nicknamed(group: Group, name: str) -> tuple[str, ...]:
    """A person's name as the nickname and the surname (``name``'s last word), when a mention
    writes a one-word nickname in quotation marks inside the full name: "Yogi Berra" of
    "Lawrence Peter "Yogi" Berra", the name people know him by."""
    for mention in group.mentions:
        found = NICKNAME.search(mention.text)
        if found is None or found.group()[1] not in OPENING_QUOTES:
            continue  # none, or one in brackets
        nickname = found.group()[2:-2]
        if _ONE_WORD.fullmatch(nickname):
            return (f"{nickname} {name.split()[-1]}",)
    return ()


def _short_forms(group: Group, name: str) -> tuple[str, ...]:
    """The shorter names of ``name`` the item named it by, which the organisation is known by
    too: its acronyms ("KNP" of the "Khmer Nation Party") and its name cut after a word
    ("Lear" of "Lear Corp", "Caltex" of "Caltex Petroleum Corp")."""
    spellings = dict.fromkeys(clean_surface(s) for s in group.surfaces)
    words = alias_key(name).split()

    def shortens(spelling: str) -> bool:
        key = alias_key(spelling)
        if spelling.isupper() and abbreviates(key, name):
            return True
        start = key.split()
        return 0 < len(start) < len(words) and words[: len(start)] == start

    return tuple(s for s in spellings if s != name and shortens(s))


def _national_aliases(group: Group, name: str) -> tuple[str, ...]:
    """Other names of a discovered organisation named with its country's abbreviation: "U.S.
    Environmental Protection Agency" is also the "United States Environmental Protection
    Agency" and, with three words or more left or when the item names it so, the
    "Environmental Protection Agency" ("Fisheries Department" of "U.S. Fisheries
    Department")."""
    first, _, rest = name.partition(" ")
    full = _NATIONAL_PREFIXES.get(alias_key(first))
    if full is None or not rest:
        return ()
    aliases = [f"{full} {rest}"]
    if len(rest.split()) >= 3 or alias_key(rest) in {alias_key(s) for s in group.surfaces}:
        aliases.append(rest)
    return tuple(aliases)
