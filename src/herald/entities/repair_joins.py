"""Mention repair, the joins: names the recogniser cut in two ("the Fish and Wildlife Service",
"American Samoan")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.known import ends_like_a_persons_name
from herald.entities.names import alias_key
from herald.entities.vocabulary import NAMING_WORDS

# Capitalised words and "and" before a name, or after it ("Fish and" of "Fish and Wildlife
# Service", "and Rescue" of "Surrey Fire and Rescue").
_CAPITALS_AND = re.compile(r"(?<![\w'’-])((?:[A-Z][\w'’-]* ){1,3})and $")
_AND_CAPITALS = re.compile(r" and ((?:[A-Z][\w'’-]*)(?: [A-Z][\w'’-]*){0,2})\b")  # .match


def joined_across_and(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """Names the recogniser cut at an "and": "Wildlife Service" of "the Fish and Wildlife
    Service", "Surrey Fire" (and "Rescue") of "Surrey Fire and Rescue". The words on the other
    side join the name when they are capitalised, hold no other name (a lone "Rescue" the whole
    takes in), and the whole ends with a word organisations and places are named with;
    whatever the label, the whole is then an organisation's or a place's name."""
    joined: dict[int, Mention] = {}
    taken: set[int] = set()  # mentions a joined name took in
    for n, mention in enumerate(mentions):
        if n in taken:
            continue
        start, end, label = mention.start, mention.end, mention.label
        before = _CAPITALS_AND.search(text, max(0, start - 60), start)
        if before is not None and mention.text.split()[-1].lower() in NAMING_WORDS:
            inside = _within(mentions, n, before.start(1), start)
            if inside is not None:
                start, taken = before.start(1), taken | inside
        after = _AND_CAPITALS.match(text, end)
        if after is not None and after.group(1).split()[-1].lower() in NAMING_WORDS:
            inside = _within(mentions, n, end, after.end())
            if inside is not None:
                end, taken = after.end(), taken | inside
                # the name's last words, and so its kind, are the other side's ("Rescue")
                label = next((mentions[i].label for i in inside if mentions[i].end == end), "ORG")
        if (start, end) != (mention.start, mention.end):
            label = "ORG" if label == "PERSON" else label
            joined[n] = Mention(text[start:end], label, start, end, mention.score)
    return [joined.get(n, m) for n, m in enumerate(mentions) if n in joined or n not in taken]


def joined_split_names(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """Two mentions one space apart that the recogniser split are one nationality when the
    knowledge base knows the whole as one ("American" and "Samoan"); two one-word mentions
    ("Piara" and "Singh", each called a place) are one person's name when the first is no name
    the knowledge base knows, both are written as names, and the second ends as people's names
    do (a first name or a known person's surname)."""
    out: list[Mention] = []
    for mention in mentions:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.end + 1 == mention.start
            and text[previous.end] == " "
            and kb.lookup_demonym(alias_key(text[previous.start : mention.end]))
        ):
            # "American" and "Samoan", one nationality the recogniser split: "American Samoan"
            out[-1] = Mention(
                text[previous.start : mention.end],
                "NORP",
                previous.start,
                mention.end,
                _joined_score(previous, mention),
            )
            continue
        if (
            previous is not None
            and previous.end + 1 == mention.start
            and text[previous.end] == " "
            and all(m.text.isalpha() and m.text.istitle() for m in (previous, mention))
            and not kb.is_known_name(alias_key(previous.text))
            and ends_like_a_persons_name(alias_key(mention.text), kb)
        ):
            out[-1] = Mention(
                text[previous.start : mention.end],
                "PERSON",
                previous.start,
                mention.end,
                _joined_score(previous, mention),
            )
            continue
        out.append(mention)
    return out


def _within(mentions: Sequence[Mention], n: int, start: int, end: int) -> set[int] | None:
    """The other mentions in ``start:end``, each a lone word names are made with ("Rescue"), or
    None when one is a name of its own ("Evansville" of "Evansville and Indiana State") or
    runs out of it."""
    inside = set()
    for i, m in enumerate(mentions):
        if i == n or m.end <= start or end <= m.start:
            continue
        if not (start <= m.start and m.end <= end) or m.text.lower() not in NAMING_WORDS:
            return None
        inside.add(i)
    return inside


def _joined_score(first: Mention, second: Mention) -> float | None:
    """The recogniser's confidence in two mentions joined into one: the lower one given."""
    given = [m.score for m in (first, second) if m.score is not None]
    return min(given) if given else None
