"""What is no new entity: names that the lists of what is no name refuse, or that the form of
the name and the words around it refuse for a kind. The rules of new entities
(:mod:`herald.entities.discovery`) and the admission model (:mod:`herald.entities.admission`)
both ask here, so each refusal is written once."""

from __future__ import annotations

import re

from herald.entities import wordlists
from herald.entities.cues import PERSON, PLACE, PRODUCT
from herald.entities.document import Document, Group, only_in_headline
from herald.entities.kb import KnowledgeBase
from herald.entities.names import alias_key
from herald.entities.shapes import (
    has_digit,
    is_quoted,
    looks_like_a_name,
    of_at,
    titled_surname,
)
from herald.entities.vocabulary import (
    HONOUR_ENDINGS,
    NAMING_WORDS,
    STATE_BY_KEY,
    TITLES,
    VESSEL_PREFIXES,
)

# Titles the recogniser often keeps in a person's name ("Coroner Gary Hargrove").
# Capitalised tokens the recogniser calls organisations that name nothing: time zones,
# abbreviations of common words, and sports reports' abbreviations (touchdown, injured
# reserve, knockout, most valuable player, quarterback, runs batted in, earned run average).
_STORM_WORDS = wordlists.sequence("storm_words")
NOT_NAMES = (
    wordlists.words("not_names")
    # a storm's word without its name ("caused by Tropical Storm…" in a cut headline)
    | {alias_key(word) for word in _STORM_WORDS}
    | wordlists.words("common_abbreviations")
    # "Injured Reserve"; a web page's time stamps kept with its text ("First Posted: 10/25/11")
    | wordlists.words("not_name_phrases")
)
# Offices, not organisations, though the recogniser calls them so ("the U.S. Surgeon General").
_POSITION = re.compile(
    r"^(?:(?:" + "|".join(wordlists.sequence("office_qualifiers")) + r")\s+)*"
    r"(?:" + "|".join(wordlists.sequence("general_offices")) + r") general$"
    # and an office named by where it serves ("Fire Marshal", "L.A. County Sheriff", "U.S.
    # Marshal")
    r"|^(?:[\w]+\s+){0,3}(?:" + "|".join(wordlists.sequence("local_offices")) + r")$"
    # and the Pope's ambassador ("the Apostolic Nuncio to the United States")
    r"|^(?:apostolic|papal)\s+nuncio$"
)


# What a name right after it is part of an office's name with ("Secretary of State John Kerry";
# narrower than _OFFICE_OF below: "the governor of Hormozgan Province" still names a place).
_SECRETARY_OF = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("secretaries_of")) + r") of\s+$", re.IGNORECASE
)
_ROMAN = re.compile(r"^[IVX]+$")  # "Anthony LaCalamita III"


def _may_be_a_new_place(kb: KnowledgeBase, doc: Document, group: Group, name: str) -> bool:
    """Whether a word the knowledge base does not know may name a new place: no acronym
    ("from XP to RT"; a dotted one, "B.C.", may be), nor a first name ("another brother,
    Louis, was a priest"). Known places are known by such names too."""
    if name.isupper() and "." not in name:
        return False
    return not kb.is_given_name(alias_key(name))


def not_a_name(doc: Document, group: Group, name: str) -> bool:
    """Whether ``name`` is no entity's whatever its kind: a word of the lists of what is no
    name ("Mich." is an abbreviated state, "Msgr." a title, time zones), an office ("Surgeon
    General"; "State" of "Secretary of State John Kerry"), or no name's shape."""
    key = alias_key(name)
    return (
        not key
        or key in NOT_NAMES
        or key in TITLES
        or key in STATE_BY_KEY
        or _POSITION.match(key) is not None
        or all(
            _SECRETARY_OF.search(doc.text, max(0, m.start - 20), m.start) for m in group.mentions
        )
        or not looks_like_a_name(name)
    )


def refused_as(kb: KnowledgeBase, doc: Document, group: Group, kind: str, name: str) -> bool:
    """Whether ``name`` (a person's without a title before it) is no new entity of the kind
    group ``kind``, by its form and the words around it."""
    words = name.split()
    if kind == PERSON and (
        titled_surname(words)  # "Deputy Ortiz"
        # no person's name has a word in capitals ("EYP MCF") or a number
        or any((w.isupper() and len(w) >= 3 and not _ROMAN.match(w)) or has_digit(w) for w in words)
    ):
        return True
    if len(words) == 1 and kind != PRODUCT and has_digit(name):
        return True  # a version or a model ("IE6", "Q10", "A380") is no place, person or org
    if len(words) == 1 and kind == PLACE and not _may_be_a_new_place(kb, doc, group, name):
        return True
    if words[0] in VESSEL_PREFIXES or is_quoted(doc.text, group):
        return True  # a ship's prefix ("INS Sukanya") or a work's title ("'Catching Fire'")
    joined = {"and", "&"} & set(words[: of_at(words)])
    if joined and words[-1].lower().strip(".") not in NAMING_WORDS:
        # two names joined ("Lopez and Carrasquillo", "North and South Korea", "Romeo &
        # Juliet"), unless the last word says what the whole names ("Harlow Pemberton & Co")
        return True
    if len(words) > 1 and words[-1].lower() in HONOUR_ENDINGS:
        return True  # an award ("MacArthur Fellowship", "Most Valuable Player Award")
    if (
        len(words) == 2
        and words[-1].lower().endswith("al")
        and words[-1].lower() not in NAMING_WORDS
        and kb.lookup_demonym(alias_key(words[0]))
    ):
        return True  # a nationality and an adjective ("the Indian Naval destroyer")
    return only_in_headline(doc, group)  # capitals prove nothing in a title-cased headline
