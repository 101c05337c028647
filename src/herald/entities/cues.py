"""What the words around a name say about its kind ("in Paris" is a place, "Paris, 24," a person).

spaCy's small model labels a name mostly by the name itself, so "Paris" is a place even in a
story about a man called Paris. These cues, read from a few words either side of each mention,
correct the label before candidates are compared.
"""

from __future__ import annotations

import re
from typing import Final

from herald.enrich.text import content_terms
from herald.entities import wordlists

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

_PLACE_BEFORE = wordlists.words("place_before")
_PLACE_OF = re.compile(
    r"\b(" + "|".join(wordlists.sequence("place_of")) + r")\s+of\s*$"
    # where a person lives, after their age: "Luann Johnson, 66, of Burnsville"
    r"|\b\d{1,3}\s*,\s*of\s*$",
    re.IGNORECASE,
)
# A place named in apposition after what it is: "Greece's second city, Thessaloniki".
_PLACE_APPOSITION = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("place_apposition")) + r")\s*,\s*$",
    re.IGNORECASE,
)
_PERSON_BEFORE = wordlists.words("person_before")
# A role in apposition after a name: "Christine Lagarde, president of the ECB", "Tim Cook,
# Apple's chief executive", "Jeffs, 52, the leader of". A place in apposition reads differently
# ("Frankfurt, the financial capital"), so only roles people hold count.
_ROLE_APPOSITION = re.compile(
    r"^\s*,\s*(?:(?:" + "|".join(wordlists.sequence("role_determiners")) + r")\s+)?"
    r"(?:[\w'’.-]+\s+){0,3}?"
    r"(?:" + "|".join(wordlists.sequence("role_apposition")) + r")\b",
    re.IGNORECASE,
)
# "CEO of X", "a spokesman for X", "head of X": X is an organisation (or a place: "president of
# France"), so half a vote.
_ORG_AFTER_ROLE = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("org_roles")) + r")\s+(?:of|for|at)"
    r"\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# What only people have, written before their names and "of" or "for": "in memory of Madeline
# Kafoury", "the funeral of", "the murder of Kathina Thomas".
_PERSON_OF = wordlists.words("person_of")
# ... when the name ends the phrase: not "the murder of Los Angeles County Sheriff's Deputy Juan
# Abrego", where the name says whose deputy.
_PHRASE_END = re.compile(
    r"^(?:\s*[,.;:!?)\"”’]|\s*$|\s+(?:" + "|".join(wordlists.sequence("phrase_end_words")) + r")\b)"
)
_PERSON_AFTER = wordlists.words("person_after")
_KINSHIP = wordlists.words("kinship")
# Legal forms, spokespeople, premises and businesses named by it ("the old Matanuska Maid dairy
# building"), members and outlets ("Abu Sayyaf militants", "the Kathimerini newspaper").
_ORG_AFTER = wordlists.words("org_after")
# What an organisation has or is, one word between: a business's premises, with what it sells
# ("the Harry Winston jewellery store", "the Harrods department store"; a plant is left out:
# "the Fukushima power plant" names a place), or the sort of body it is ("Iran's Red Crescent
# relief agency", "the Houthi rebel group", "the Likud ruling party").
_OWN_NOUN = re.compile(r"^ [a-z]+ (?:" + "|".join(wordlists.sequence("own_nouns")) + r")\b")
# What an organisation is, written right before its name ("newspaper Le Parisien", "the
# broadcaster Sky"; not "his Fidesz party, István Simicskó").
_ORG_BEFORE = wordlists.words("org_before")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+")
_AGE_APPOSITION = re.compile(r"^\s*,\s*(\d{1,3})\s*,")
_AKA = re.compile(
    r"^\s*,?\s*(" + "|".join(wordlists.sequence("alias_phrases")) + r")\b", re.IGNORECASE
)
_BASED = re.compile(r"^-based\b")
_POSSESSIVE_AFTER = re.compile(r"^['’]s?(?!\w)")
# "a Perth man", "a Brooklyn woman": a name before such a word is where people live.
_RESIDENT_AFTER = re.compile(r"^\s+(?:" + "|".join(wordlists.sequence("resident_nouns")) + r")\b")


def kind_cues(text: str, start: int, end: int) -> dict[str, float]:
    """Votes (0-1 each) for kind groups from the words around ``text[start:end]``."""
    before = text[max(0, start - 60) : start]
    after = text[end : end + 80]
    before_words = [w.lower() for w in _WORD.findall(before)]
    after_words = [w.lower() for w in _WORD.findall(after)]
    votes: dict[str, float] = {}
    # the words right before, as written (a comma ends a word: "party," is no "party")
    written = before.lower().split()[-3:]

    previous = before_words[-1] if before_words else ""
    if previous == "the" and len(before_words) > 1:
        previous = before_words[-2]
    # "in Paris", "the city of Paris"; not "to Goldwater's campaign", where the preposition
    # governs what the name owns.
    owner = _POSSESSIVE_AFTER.match(after) or text[start:end].endswith(("'s", "’s"))
    # nor "from the Harry Winston jewellery store", where it governs the premises
    owned = _OWN_NOUN.match(after)
    governed = previous in _PLACE_BEFORE and not owner and not owned
    if (
        governed
        or _PLACE_OF.search(before)
        or _PLACE_APPOSITION.search(before)
        or _BASED.match(after)
        or _RESIDENT_AFTER.match(after)
    ):
        votes[PLACE] = votes.get(PLACE, 0.0) + 1.0
    person_of = len(written) >= 2 and written[-1] in ("of", "for") and written[-2] in _PERSON_OF
    if previous in _PERSON_BEFORE or (person_of and _PHRASE_END.match(after)):
        votes[PERSON] = votes.get(PERSON, 0.0) + 1.0
    following = after_words[0] if after_words else ""
    if _ORG_AFTER_ROLE.search(before):
        votes[ORG] = votes.get(ORG, 0.0) + 0.5
    if _AGE_APPOSITION.match(after) or _AKA.match(after) or _ROLE_APPOSITION.match(after):
        votes[PERSON] = votes.get(PERSON, 0.0) + 1.0
    elif following in _PERSON_AFTER:
        # Weak: countries and cities "say" things too (their governments do).
        votes[PERSON] = votes.get(PERSON, 0.0) + 0.4
    if _KINSHIP & set(after_words[:3]):
        votes[PERSON] = votes.get(PERSON, 0.0) + 0.75
    if written[-1:] == ["the"]:
        written = written[:-1]
    if following in _ORG_AFTER or (written and written[-1] in _ORG_BEFORE) or owned:
        votes[ORG] = votes.get(ORG, 0.0) + 0.75
    return votes


# Verbs of speech and argument that follow a person's name ("Heller argued", "Lyons said").
_SPEECH_AFTER = wordlists.words("speech_after")
# Kinship and partner nouns written right before a person's name ("my wife Portia").
_RELATIVE_BEFORE = wordlists.words("relative_before")


# A verb, a capitalised word and "and" before a name; "and", a capitalised word and a verb after.
_NAME_AND_BEFORE = re.compile(r"\b([a-z]+)\s+[A-Z][\w'’-]+\s+and\s+$")
_AND_NAME_AFTER = re.compile(r"^\s+and\s+[A-Z][\w'’-]+\s+([a-z]+)\b")
# A possessive and a relative or a lawyer after a name ("LiLo's lawyer", "Jackson's wife").
_RELATIVE_AFTER_POSSESSIVE = re.compile(
    r"^\s?['’]\s?s\s+(?:(?:"
    + "|".join(wordlists.sequence("relative_modifiers"))
    + r")\s+)?(?:"
    + "|".join(sorted(_RELATIVE_BEFORE))
    + r"|lawyer|attorney)\b",
    re.IGNORECASE,
)


# A quotation's speaker written after its verb ("said Zadan and Meron jointly").
_SPEECH_BEFORE = wordlists.words("speech_before")


def person_cue(text: str, start: int, end: int) -> bool:
    """Whether the words right around ``text[start:end]`` say a person is named: a title or a
    relative before it ("Mr Lyons", "my wife Portia"), an age or a role in apposition after it
    ("Zadan, 61,", "Meron, the producer"), or a verb of speech right before or after it ("said
    Zadan", "Heller argued")."""
    before = text[max(0, start - 40) : start]
    before_words = [w.lower() for w in _WORD.findall(before[-30:])]
    after = text[end : end + 80]
    previous = before_words[-1] if before_words else ""
    if previous in _PERSON_BEFORE or previous in _RELATIVE_BEFORE or previous in _SPEECH_BEFORE:
        return True
    if (
        _AGE_APPOSITION.match(after)
        or _ROLE_APPOSITION.match(after)
        or _RELATIVE_AFTER_POSSESSIVE.match(after)
    ):
        return True
    # The second of two names joined by "and" shares the first's verb ("said Zadan and Meron"),
    # the first the second's ("Zadan and Meron said").
    joined = _NAME_AND_BEFORE.search(before)
    if joined is not None and joined.group(1) in _SPEECH_BEFORE:
        return True
    following = _WORD.match(after.lstrip(" "))
    if following is None:
        return False
    word = following.group(0).lower()
    if word == "and" and (verb := _AND_NAME_AFTER.match(after)) is not None:
        word = verb.group(1)
    return word in _SPEECH_AFTER


# --- sports teams named by their city ("Indianapolis beat Kansas City 20-13") ------------------

# Words of sports reports, by sport (stemmed as :func:`content_terms` stems them): a story needs
# some to read a city as its team, and they tell the team of one sport from another's.
SPORT_WORDS: Final[dict[str, frozenset[str]]] = {
    sport: frozenset(content_terms(" ".join(words)))
    for sport, words in wordlists.groups("sport_words").items()
}
SPORTS_WORDS: Final = frozenset(content_terms(" ".join(wordlists.sequence("sports_words")))).union(
    *SPORT_WORDS.values()
)

_SCORE = r"\d{1,3}\s*[-–]\s*\d{1,3}"
_RESULT_VERBS = "|".join(w.replace(" ", r"\s+") for w in wordlists.sequence("result_verbs"))
# "... victory over X", "X beat Y 20-13", "Creighton 65, Drake 53", "X (7-2)".
_TEAM_BEFORE = re.compile(
    r"(?:\b(?:" + "|".join(wordlists.sequence("game_nouns")) + r")\s+"
    r"(?:" + "|".join(re.escape(w) for w in wordlists.sequence("game_prepositions")) + r")"
    rf"|\b(?:{_RESULT_VERBS}|vs\.?|versus)|{_SCORE}\s+"
    r"(?:victory|win|loss)\s+(?:over|against|to)"
    r"|\b(?:" + "|".join(wordlists.sequence("lead_verbs")) + r"))\s+"
    r"(?:the\s+)?(?:visiting\s+|host\s+|top-ranked\s+|No\.\s*\d+\s+)?$",
    re.IGNORECASE,
)
_TEAM_AFTER = re.compile(
    rf"^(?:\s*\(\s*\d{{1,2}}\s*-\s*\d{{1,2}}\s*\))?\s*(?:(?:{_RESULT_VERBS})\b[^.;]{{0,50}}?"
    rf"{_SCORE}|,?\s*\d{{1,3}}\s*,\s*[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*\s+\d{{1,3}}\b|\s*\(\s*\d{{1,2}}\s*-"
    rf"\s*\d{{1,2}}\s*\))",
)


# A team's rank or seed before its name ("Top-ranked North Carolina", "No. 5 seed Indiana
# State", "the third-seeded Bluejays").
_RANKED_BEFORE = re.compile(
    r"\b(?:\d+(?:st|nd|rd|th)|" + "|".join(wordlists.sequence("seed_words")) + r")"
    r"[- ](?:ranked|seeded)\s+$|\bNo\s?\.\s*\d+(?:\s+seed)?\s+$",
    re.IGNORECASE,
)
# A team's result after its name and a possessive ("Creighton's 65-53 victory").
_RESULT_AFTER_POSSESSIVE = re.compile(
    rf"\s*['’]\s*s\s+{_SCORE}\s+(?:" + "|".join(wordlists.sequence("result_nouns")) + r")\b",
    re.IGNORECASE,
)
# The first side of a result written "Creighton 65, Drake 53", before the second.
_SCORED_BEFORE = re.compile(r"\b[A-Z][\w.]*\s+\d{1,3}\s*,\s*$")

# A team's dealings with its players: "New Orleans picked up DeShawn Wynn".
_TEAM_MOVE_AFTER = re.compile(
    r"^\s+(?:has\s+|have\s+)?(?:"
    + "|".join(w.replace(" ", r"\s+") for w in wordlists.sequence("roster_moves"))
    + r")\s"
)


def team_cue(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` reads as a team in a game's result, its rank or its dealings
    with its players: "a 91-73 victory over Evansville", "Creighton defeated Drake 65-53",
    "Creighton 65, Drake 53", "Creighton's 65-53 victory", "Evansville (7-2)", "leading
    Indianapolis to a 20-13 victory", "top-ranked North Carolina", "No. 5 seed Indiana State",
    "New Orleans picked up DeShawn Wynn". A city or state named so is its team."""
    before = text[max(0, start - 40) : start]
    after = text[end : end + 60]
    if _TEAM_AFTER.match(after) or _TEAM_MOVE_AFTER.match(after):
        return True
    if _SCORED_BEFORE.search(before) and re.match(r"\s+\d{1,3}\b", after):
        return True  # the second side of "Creighton 65, Drake 53"
    if _RANKED_BEFORE.search(before) or _RESULT_AFTER_POSSESSIVE.match(after):
        return True
    if not _TEAM_BEFORE.search(before):
        return False
    # "beat", "over", "against" also open other phrases: a score or result must be near.
    near = text[max(0, start - 40) : end + 60]
    return bool(re.search(_SCORE, near) or re.search(r"\b(?:victory|win|games?)\b", near))
