"""Stage 7, salience: how often and where the item names each linked entity (a surname alone
counted for the one person of that surname named in full), and so how much it is about it."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from herald.enrich.ner import stop_words
from herald.entities import wordlists
from herald.entities.cues import PERSON
from herald.entities.document import Document, LinkedEntity, Resolved
from herald.entities.names import alias_key, word_positions
from herald.entities.vocabulary import POST_NOMINALS, TITLES

# What may follow a surname in a person's full name ("Arcade Joseph Comeaux Jr").
_GENERATIONS = wordlists.words("generations")


def measure(doc: Document, resolved: dict[str, Resolved]) -> list[LinkedEntity]:
    """Mention counts over the whole text and salience for every linked entity."""
    spans: list[tuple[int, int, bool, str]] = []  # start, end, a surname alone, the entity
    names_of: dict[str, set[str]] = {}
    for entity_id, (record, _, group) in resolved.items():
        names = set(group.surfaces)
        names.update(n for n in (record.display_name, *record.aliases) if len(n) >= 3)
        names_of[entity_id] = names
        for name in names:
            spans.extend(
                (at, at + len(name), False, entity_id) for at in word_positions(doc.text, name)
            )
        spans.extend((m.start, m.end, False, entity_id) for m in group.mentions)
    for word, entity_id in _surnames_to_count(resolved, names_of).items():
        spans.extend(
            (at, at + len(word), True, entity_id)
            for at in word_positions(doc.text, word)
            if stands_alone(doc.text, at, at + len(word))
        )
    # Longest match wins where names overlap ("Paris" inside "Paris Hilton"); a name the
    # recogniser or the knowledge base gave wins over a surname found alone.
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0], s[2]))
    taken = bytearray(len(doc.text) + 1)  # 1 where a counted mention is (a C-speed check)
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    in_title: set[str] = set()
    alone: dict[str, str] = {}  # the surnames counted alone, by entity
    for start, end, surname, entity_id in spans:
        if taken.find(1, start, end) != -1:
            continue
        taken[start:end] = b"\x01" * (end - start)
        counts[entity_id] += 1
        if surname:
            alone[entity_id] = doc.text[start:end]
        first[entity_id] = min(first.get(entity_id, start), start)
        if start < doc.title_end:
            in_title.add(entity_id)
    top = max(counts.values(), default=1)
    length = max(len(doc.text), 1)
    out = []
    for entity_id, (record, confidence, group) in resolved.items():
        count = max(counts[entity_id], 1)
        position = 1.0 - min(first.get(entity_id, length), length) / length
        frequency = math.log1p(count) / math.log1p(top)
        salience = (
            0.30 * (1.0 if entity_id in in_title else 0.0) + 0.25 * position**2 + 0.45 * frequency
        )
        out.append(
            LinkedEntity(
                entity_id=entity_id,
                display_name=record.display_name,
                entity_kind=record.entity_kind,
                mention_count=count,
                salience=round(min(1.0, salience), 3),
                confidence=confidence,
                surfaces=tuple(sorted({*group.surfaces, *alone.get(entity_id, "").split()})),
            )
        )
    return out


def _surnames_to_count(
    resolved: dict[str, Resolved], names_of: dict[str, set[str]]
) -> dict[str, str]:
    """The surname of each person named here in full, to count where the item writes it alone
    and the recogniser did not tag it ("Manning threw for 364 yards" after "Peyton Manning";
    the small model often misses a surname opening a sentence). Only a surname that is no other
    entity's name here and belongs to one person named here ("Bush" beside "George W. Bush"
    and "Laura Bush" is neither's), capitalised and not an acronym, a title or a common word."""
    owners: dict[str, set[str]] = defaultdict(set)
    for entity_id, (record, _, group) in resolved.items():
        if record.entity_kind != PERSON:
            continue
        for surface in group.surfaces:
            words = [w.strip(",.") for w in surface.split()]
            while words and (words[-1] in POST_NOMINALS or words[-1].lower() in _GENERATIONS):
                words.pop()
            if len(words) >= 2:
                owners[words[-1]].add(entity_id)
    others = {alias_key(n) for entity_id, names in names_of.items() for n in names if " " not in n}
    return {
        surname: next(iter(people))
        for surname, people in owners.items()
        if len(people) == 1
        and len(surname) >= 3
        and surname[:1].isupper()
        and not surname.isupper()
        and surname.replace("-", "").replace("'", "").replace("’", "").isalpha()
        and surname.lower() not in TITLES
        and surname.lower() not in stop_words()
        and alias_key(surname) not in others - {alias_key(n) for n in names_of[next(iter(people))]}
    }


def stands_alone(text: str, start: int, end: int) -> bool:
    """Whether the surname at ``start:end`` stands alone for a person: no capitalised word
    right before it but a title ("Mr", "Coach") or a common word opening a sentence ("In"),
    none after it ("Manning threw", "Mr Alishbandi told"; not "Eli Manning", "Manning Field"),
    no "the" before it and no "family" or "clan" after it, which name something else ("the
    Genovese family", "the Doctor", "two Genovese family members")."""
    before = text[max(0, start - 30) : start]
    previous = before.rstrip(" ").rsplit(None, 1)[-1] if before.strip() else ""
    if before.endswith(" ") and previous[-1:].isalpha():
        word = previous.lower().strip(".")
        titled = word in TITLES or word in stop_words()
        if word == "the" or (previous[:1].isupper() and not titled):
            return False
    after = text[end : end + 30]
    after = after[2:] if after[:2] in ("'s", "’s") else after
    following = after.lstrip(" ")
    named_on = following[:1].isupper() or following.startswith(_KIN_GROUPS)
    return not (after[:1] == " " and named_on)


_KIN_GROUPS = wordlists.sequence("kin_groups")
