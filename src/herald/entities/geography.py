"""Where a place is: the region or country the text writes after a name ("Harriman,
Tennessee", "Springfield, Mo."), whether the item names a place's region or country, and the
words that make a mention a place ("in Regina")."""

from __future__ import annotations

import re

from herald.entities import wordlists
from herald.entities.cues import PLACE, kind_cues
from herald.entities.document import Document, Group
from herald.entities.kb import KnowledgeBase
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key
from herald.entities.vocabulary import AP_STATE, AREAS, NON_SPACE, STATE_BY_KEY


def _places_by_region(kb: KnowledgeBase, doc: Document) -> dict[str, set[str]]:
    if doc.places_by_region is None:
        doc.places_by_region = {}
        for key in doc.keys:
            places = [r for r in kb.lookup(key) if r.entity_kind == "place"]
            region = places[0].first_tag("region") if len(places) == 1 else None
            if region is not None:
                doc.places_by_region.setdefault(alias_key(region), set()).add(places[0].id)
    return doc.places_by_region


def geography_score(kb: KnowledgeBase, doc: Document, record: EntityRecord) -> float:
    """1 when a place's region ("Bloomington ... Minnesota") or, for a place the knowledge
    base puts in no region, its country (Paris ... France) is also named in the document;
    0.9 when another place the item names lies in that region ("Bloomington ...
    Minneapolis"); 0.75 when only the country of a place with a region is (the region tells
    the country's Bloomingtons apart). A country is named by its nationality too ("Tuscany
    ... Italian officials")."""
    if record.entity_kind != "place":
        return 0.0
    region = record.first_tag("region")
    if region is not None:
        where = alias_key(region)
        if where in doc.keys:
            return 1.0
        if _places_by_region(kb, doc).get(where, set()) - {record.id}:
            return 0.9  # another place of the item lies there
    country = kb.country_of(record)
    if country is None or not (item_names(doc, country) or _nationality_named(doc, country)):
        return 0.0
    return 0.75 if region is not None else 1.0


def located_in(kb: KnowledgeBase, doc: Document, group: Group) -> EntityRecord | None:
    """The region or country written right after the group's name, as in "Harriman,
    Tennessee", "Huntsville, Ala." or "Yola, Nigeria" (one the knowledge base knows, and
    only one)."""
    for mention in group.mentions:
        state = AP_STATE.match(doc.text, mention.end)
        if state is not None:  # news style for a US state
            words = STATE_BY_KEY[alias_key(state.group(1))].split()
        elif (after := _AFTER_COMMA.match(doc.text, mention.end)) is not None:
            spans = list(NON_SPACE.finditer(doc.text, after.start(1), after.end(1)))
            words = [m.group() for m in spans]
            if words[-1].endswith(("'s", "’s")):
                continue  # "Hansbrough, North Carolina's career scoring leader": an owner
        else:
            continue
        for n in range(len(words), 0, -1):
            if n < len(words) and alias_key(words[n - 1]) in _COMPASS:
                continue  # "South" of "Merthyr Tydfil, South Wales" is no region alone
            key = alias_key(" ".join(words[:n]))
            known = kb.lookup(key)
            places = [
                r
                for r in known
                if (is_us_state(r) if state else r.first_tag("place_type") in AREAS)
            ]
            if not places and not state and any(r.entity_kind == "place" for r in known):
                break  # "Atlanta, Kansas City": a city, whose first word is no area here
            if len(places) == 1:
                return places[0]
            if places:
                return None  # "Georgia": the state or the country
    return None


_AFTER_COMMA = re.compile(r",\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})")
# Words that open a longer place name ("South Wales", "North Carolina"): never an area alone
# when more of the name follows.
_COMPASS = wordlists.words("compass_words")


def item_names(doc: Document, record: EntityRecord) -> bool:
    """Whether the item names ``record`` by one of its names ("U.S." for the United States)."""
    keys = {alias_key(record.display_name)} | {alias_key(a) for a in record.aliases}
    return not keys.isdisjoint(doc.keys)


def _nationality_named(doc: Document, country: EntityRecord) -> bool:
    """Whether the item writes the country's nationality ("Italian" for Italy)."""
    return any(alias_key(d) in doc.keys for d in country.tag_values("demonym"))


def is_us_state(record: EntityRecord) -> bool:
    return record.first_tag("place_type") == "region" and record.first_tag("country") == "US"


def abbreviated_state(text: str, group: Group) -> str | None:
    """The state a group names when each of its mentions is a news agency's abbreviation of a
    US state written after a place and a comma ("Springfield, Mo."), else None."""
    states = set()
    for mention in group.mentions:
        # The grammar with_state_mentions reads, found where this mention starts.
        found = AP_STATE.search(text, max(0, mention.start - 3), mention.end + 1)
        abbreviation = mention.text.rstrip(".")
        if found is None or found.start(1) != mention.start or found.group(1) != abbreviation:
            return None
        states.add(STATE_BY_KEY[alias_key(abbreviation)])
    return states.pop() if len(states) == 1 else None


def lies_in(record: EntityRecord, located: EntityRecord) -> bool:
    """Whether ``record`` is another place that may lie in ``located``: nothing the knowledge
    base says of it puts it elsewhere."""
    if record.entity_kind != "place" or record.id == located.id:
        return False
    region = record.first_tag("region")
    if located.first_tag("place_type") == "region" and region:
        return alias_key(region) == alias_key(located.display_name)
    country, where = record.first_tag("country"), located.first_tag("country")
    return not (country and where) or country == where


def placed_mentions(text: str, group: Group) -> int:
    """How many mentions of the group the words around make a place ("in Regina")."""
    return sum(1 for m in group.mentions if kind_cues(text, m.start, m.end).get(PLACE))
