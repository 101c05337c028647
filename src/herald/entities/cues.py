"""What the words around a name say about its kind ("in Paris" is a place, "Paris, 24," a person).

spaCy's small model labels a name mostly by the name itself, so "Paris" is a place even in a
story about a man called Paris. These cues, read from a few words either side of each mention,
correct the label before candidates are compared.
"""

from __future__ import annotations

import re
from typing import Final

# Kind groups used while linking ("company" and "organization" are both spaCy ORG).
PERSON: Final = "person"
PLACE: Final = "place"
ORG: Final = "org"
PRODUCT: Final = "product"
EVENT: Final = "event"
GROUPS: Final = (PERSON, PLACE, ORG, PRODUCT, EVENT)

KIND_GROUP: Final = {
    "person": PERSON,
    "place": PLACE,
    "company": ORG,
    "organization": ORG,
    "product": PRODUCT,
    "event": EVENT,
}

# How far to trust spaCy's label, as a distribution over kind groups.
LABEL_GROUPS: Final[dict[str, dict[str, float]]] = {
    "PERSON": {PERSON: 0.85, ORG: 0.08, PLACE: 0.05, PRODUCT: 0.02},
    "ORG": {ORG: 0.85, PLACE: 0.05, PRODUCT: 0.05, PERSON: 0.05},
    "GPE": {PLACE: 0.85, ORG: 0.1, PERSON: 0.05},
    "LOC": {PLACE: 0.9, ORG: 0.05, EVENT: 0.05},
    "FAC": {PLACE: 0.6, ORG: 0.3, PRODUCT: 0.1},
    "PRODUCT": {PRODUCT: 0.75, ORG: 0.2, PERSON: 0.05},
    "EVENT": {EVENT: 0.9, PLACE: 0.05, ORG: 0.05},
}

_PLACE_BEFORE = frozenset(
    [
        "in",
        "at",
        "to",
        "from",
        "near",
        "outside",
        "inside",
        "across",
        "toward",
        "towards",
        "into",
        "via",
        "through",
        "throughout",
        "around",
        "central",
        "northern",
        "southern",
        "eastern",
        "western",
        "downtown",
        "suburban",
        "visit",
        "visited",
        "visiting",
        "visits",
        "reach",
        "reached",
        "reaching",
        "leave",
        "left",
        "leaving",
    ]
)
_PLACE_OF = re.compile(
    r"\b(city|capital|streets|suburbs|outskirts|mayor|centre|center|residents|people|region|"
    r"province|state|county|north|south|east|west|heart|part|parts|citizens)\s+of\s*$",
    re.IGNORECASE,
)
_PERSON_BEFORE = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "miss",
        "dr",
        "prof",
        "sir",
        "dame",
        "lord",
        "lady",
        "king",
        "queen",
        "prince",
        "princess",
        "president",
        "senator",
        "sen",
        "rep",
        "gov",
        "governor",
        "minister",
        "premier",
        "chancellor",
        "actress",
        "actor",
        "singer",
        "rapper",
        "star",
        "coach",
        "striker",
        "player",
        "chief",
        "ceo",
        "judge",
        "pope",
        "bishop",
        "father",
        "uncle",
        "aunt",
        "son",
        "daughter",
        "wife",
        "husband",
        "brother",
        "sister",
        "mother",
        "cousin",
        "chairman",
        "chairwoman",
        "secretary",
        "spokesman",
        "spokeswoman",
        "founder",
        "director",
        "detective",
        "sheriff",
        "attorney",
        "lawyer",
        "officer",
        "captain",
        "general",
        "sgt",
        "lt",
        "col",
        "gen",
        "capt",
        "rev",
    ]
)
# A role in apposition after a name: "Christine Lagarde, president of the ECB", "Tim Cook,
# Apple's chief executive", "Jeffs, 52, the leader of". A place in apposition reads differently
# ("Frankfurt, the financial capital"), so only roles people hold count.
_ROLE_APPOSITION = re.compile(
    r"^\s*,\s*(?:(?:the|a|an|its|their|his|her)\s+)?(?:[\w'’.-]+\s+){0,3}?"
    r"(?:president|prime minister|minister|chancellor|ceo|chief executive|chief|chairman|"
    r"chairwoman|chair|director|spokesman|spokeswoman|spokesperson|secretary|governor|senator|"
    r"congressman|congresswoman|mayor|leader|founder|co-founder|head|actor|actress|singer|"
    r"rapper|coach|player|striker|manager|judge|lawyer|attorney|ambassador|commissioner|"
    r"general|officer|economist|analyst|professor|author|producer|director|star)\b",
    re.IGNORECASE,
)
# "CEO of X", "a spokesman for X", "head of X": X is an organisation (or a place: "president of
# France"), so half a vote.
_ORG_AFTER_ROLE = re.compile(
    r"\b(?:ceo|chief executive|chairman|chairwoman|spokesman|spokeswoman|spokesperson|head|"
    r"director|president|member|members|officials?|employees?|executives?)\s+(?:of|for|at)"
    r"\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_PERSON_AFTER = frozenset(
    [
        "said",
        "says",
        "told",
        "tells",
        "added",
        "asked",
        "explained",
        "wrote",
        "married",
        "whose",
        "himself",
        "herself",
        "who",
        "smiled",
        "laughed",
    ]
)
_KINSHIP = frozenset(
    [
        "son",
        "daughter",
        "child",
        "children",
        "wife",
        "husband",
        "mother",
        "father",
        "brother",
        "sister",
        "born",
        "died",
        "married",
        "nephew",
        "niece",
        "grandson",
        "granddaughter",
        "boyfriend",
        "girlfriend",
        "widow",
    ]
)
_ORG_AFTER = frozenset(
    [
        "inc",
        "corp",
        "ltd",
        "plc",
        "shares",
        "stock",
        "spokesman",
        "spokeswoman",
        "spokesperson",
        "ceo",
        "announced",
        "reported",
    ]
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+")
_AGE_APPOSITION = re.compile(r"^\s*,\s*(\d{1,3})\s*,")
_AKA = re.compile(r"^\s*,?\s*(also known as|aka|known as|born)\b", re.IGNORECASE)
_BASED = re.compile(r"^-based\b")


def kind_cues(text: str, start: int, end: int) -> dict[str, float]:
    """Votes (0-1 each) for kind groups from the words around ``text[start:end]``."""
    before = text[max(0, start - 60) : start]
    after = text[end : end + 80]
    before_words = [w.lower() for w in _WORD.findall(before)]
    after_words = [w.lower() for w in _WORD.findall(after)]
    votes: dict[str, float] = {}

    previous = before_words[-1] if before_words else ""
    if previous == "the" and len(before_words) > 1:
        previous = before_words[-2]
    if previous in _PLACE_BEFORE or _PLACE_OF.search(before) or _BASED.match(after):
        votes[PLACE] = votes.get(PLACE, 0.0) + 1.0
    if previous in _PERSON_BEFORE:
        votes[PERSON] = votes.get(PERSON, 0.0) + 1.0
    following = after_words[0] if after_words else ""
    if _ORG_AFTER_ROLE.search(before):
        votes[ORG] = votes.get(ORG, 0.0) + 0.5
    if _AGE_APPOSITION.match(after) or _AKA.match(after) or _ROLE_APPOSITION.match(after):
        votes[PERSON] = votes.get(PERSON, 0.0) + 1.0
    elif following in _PERSON_AFTER:
        # Weak: countries and cities "say" things too (their governments do).
        votes[PERSON] = votes.get(PERSON, 0.0) + 0.4
    if _KINSHIP & set(after_words[:8]):
        votes[PERSON] = votes.get(PERSON, 0.0) + 0.75
    if following in _ORG_AFTER:
        votes[ORG] = votes.get(ORG, 0.0) + 0.75
    return votes
