"""Mention repair, the joins: names the recogniser cut in two ("the Fish and Wildlife Service",
"Vincent 'The Chin' Gigante", "American Samoan"), and a US state abbreviated after a place
("Springfield, Mo.") as a mention of its own."""

from __future__ import annotations

import re
from collections.abc import Sequence

from herald.enrich.ner import Mention, stop_words
from herald.entities.document import surface_key
from herald.entities.kb import KnowledgeBase
from herald.entities.known import ends_like_a_persons_name
from herald.entities.names import alias_key, fold
from herald.entities.vocabulary import AP_STATE, NAMING_WORDS, TITLES


def with_state_mentions(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions, with a US state abbreviated after a place ("Springfield, Mo.") as a
    mention of its own where the recogniser did not find it."""
    out = list(mentions)
    for mention in mentions:
        match = AP_STATE.match(text, mention.end)
        if match is None:
            continue
        start, end = match.span(1)
        if not any(m.start < end and start < m.end for m in out):
            out.append(Mention(match.group(1), "GPE", start, end))
    return out


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
            joined[n] = Mention(text[start:end], label, start, end)
    return [joined.get(n, m) for n, m in enumerate(mentions) if n in joined or n not in taken]


# A capitalised first name right before a surname, maybe with a nickname between them, quoted
# or in brackets ("Kimani (Kiki) Gray").
_GIVEN_BEFORE = re.compile(
    r"(?<![\w.'’-])([A-Z][a-z]+) (?:[\"'“‘][^\"'“”‘’\n]{1,30}[\"'”’] |\([A-Z][^()\n]{0,29}\) )?$"
)


def with_given_names(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """A surname the recogniser called a person without the first name written right before
    it takes the first name back ("Vincent 'The Chin' Gigante", where it saw "Gigante" and
    "Vincent '"): a known first name, capitalised, no title ("Governor Palin"), and no part of
    another mention but a person's it then absorbs. So does a word the recogniser called
    something else when neither it, the first name nor the two together name anything the
    knowledge base knows ("Italian Flavia Pennetta", where it saw the place "Pennetta"); the
    name is then a person's."""
    out = list(mentions)
    absorbed: set[int] = set()
    for i, mention in enumerate(out):
        if len(mention.text.split()) != 1:
            continue
        if mention.label != "PERSON" and (
            not mention.text.isalpha() or kb.is_known_name(alias_key(mention.text))
        ):
            continue
        before = _GIVEN_BEFORE.search(text, max(0, mention.start - 50), mention.start)
        if before is None:
            continue
        given, start = before.group(1), before.start(1)
        if (
            given.lower() in stop_words()
            or given.lower() in TITLES
            or not kb.is_given_name(fold(given))
        ):
            continue
        inside = _people_within(out, i, start, mention.start)
        if inside is None:
            continue
        whole = text[start : mention.end]
        if mention.label != "PERSON" and (
            inside or kb.is_known_name(alias_key(given)) or kb.is_known_name(surface_key(whole))
        ):
            continue
        absorbed.update(inside)
        out[i] = Mention(whole, "PERSON", start, mention.end)
    return [m for j, m in enumerate(out) if j not in absorbed]


def _people_within(mentions: Sequence[Mention], n: int, start: int, end: int) -> list[int] | None:
    """The other mentions in ``start:end``, the words mention ``n`` grows by, when each is a
    person's lying wholly inside; None when one is of another kind or runs out of it."""
    inside = [j for j, m in enumerate(mentions) if j != n and m.start < end and m.end > start]
    if any(
        mentions[j].label != "PERSON" or mentions[j].start < start or mentions[j].end > end
        for j in inside
    ):
        return None
    return inside


# A nickname, quoted or in brackets, then a capitalised word: "Kimani (Kiki) Gray".
_NICKNAME_THEN_SURNAME = re.compile(
    r" (?:[\"'“‘][^\"'“”‘’\n]{1,30}[\"'”’]|\([A-Z][^()\n]{0,29}\)) ([A-Z][\w'’-]*[a-z])\b"
)


def with_surnames_after_nicknames(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """A first name (or first names) the recogniser called a person takes the surname written
    after a nickname ("Kimani 'Kiki' Gray", where it saw only "Kimani"; "Lawrence Peter "Yogi"
    Berra", where it saw "Lawrence Peter" and "Yogi" Berra"): a nickname between two names says
    a person is named. A surname the recogniser called a person too is absorbed; one it called
    something else stays apart."""
    out = list(mentions)
    absorbed: set[int] = set()
    for i, mention in enumerate(out):
        words = mention.text.split()
        if mention.label != "PERSON" or not 1 <= len(words) <= 3:
            continue
        if not all(w[:1].isupper() for w in words):
            continue
        after = _NICKNAME_THEN_SURNAME.match(text, mention.end)
        if after is None:
            continue
        end = after.end(1)
        inside = _people_within(out, i, mention.end, end)
        if inside is None:
            continue
        absorbed.update(inside)
        out[i] = Mention(text[mention.start : end], "PERSON", mention.start, end)
    return [m for j, m in enumerate(out) if j not in absorbed]


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
                text[previous.start : mention.end], "NORP", previous.start, mention.end
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
                text[previous.start : mention.end], "PERSON", previous.start, mention.end
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
