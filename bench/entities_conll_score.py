"""The two entity scorers on CoNLL-2003: mention level and document level.

Mention level (the standard CoNLL-2003 score): a recognised name is right when its span and type
equal a gold name's exactly; precision, recall and F1 per type and micro-averaged over the types.
The recogniser's OntoNotes labels are mapped to CoNLL's (``LABELS``): PERSON -> PER; ORG -> ORG;
GPE, LOC, FAC -> LOC; NORP, EVENT, PRODUCT, WORK_OF_ART, LAW, LANGUAGE -> MISC; labels already
in CoNLL's scheme stay; the rest (dates, numbers) are not names.

Document level (what Herald stores for an item): the distinct names per document of people
(PER), organisations (ORG) and places (LOC); MISC is not scored. A person's surname written
alone joins the full name it ends ("Simmons" is "Phil Simmons" when the document names him so),
on the gold side and the system's alike. A system entity is right when its display name or one
of its aliases equals a gold name of its kind; a gold name is found when a system entity of its
kind has it. Names are compared normalised (``normalise``: case, accents, white space and
punctuation ignored, a leading "the" and a closing possessive dropped), as the ECB+ and WCEP
scorers compare them: CoNLL-2003's text is plain ASCII, so "Liege" is the knowledge base's
"Liège".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

LABELS = {
    "PERSON": "PER",
    "PER": "PER",
    "ORG": "ORG",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    **dict.fromkeys(("NORP", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW", "LANGUAGE", "MISC"), "MISC"),
}
MENTION_TYPES = ("PER", "ORG", "LOC", "MISC")
DOCUMENT_KINDS = ("PER", "ORG", "LOC")
# Herald's entity kinds scored at document level; products and events have no CoNLL kind.
HERALD_KINDS = {"person": "PER", "company": "ORG", "organization": "ORG", "place": "LOC"}
LABEL_NOTE = (
    "labels mapped: PERSON->PER; ORG->ORG; GPE, LOC, FAC->LOC; "
    "NORP, EVENT, PRODUCT, WORK_OF_ART, LAW, LANGUAGE->MISC"
)

Counts4 = tuple[int, int, int, int]  # right, answers, found, gold (bench/bootstrap.py)


def normalise(name: str) -> str:
    """A name's comparison key: "The U.S." -> "us", "Leicestershire's" -> "leicestershire",
    "Liège" -> "liege"."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    text = re.sub(r"['’]s$", "", text)
    text = re.sub(r"[.'’`]", "", text)
    text = " ".join(re.sub(r"[^\w]+", " ", text).split())
    return text.removeprefix("the ") if text != "the" else text


@dataclass(frozen=True, slots=True)
class Named:
    """One entity of a document: its kind (PER, ORG, LOC) and its normalised names."""

    kind: str
    names: frozenset[str]
    label: str = ""  # how it is shown in errors

    @staticmethod
    def of(kind: str, names: Iterable[str], label: str = "") -> Named:
        keys = frozenset(k for k in (normalise(n) for n in names) if k)
        return Named(kind, keys, label or min(keys, key=lambda k: (-len(k), k), default=""))


def join_surnames(entities: Iterable[Named]) -> list[Named]:
    """People named by one word that is the last word of another person's name in the same
    document join that person ("Simmons" joins "Phil Simmons", and every such person when
    several share the surname)."""
    entities = [e for e in entities if e.names]
    people = [e for e in entities if e.kind == "PER"]
    full = [e for e in people if any(" " in n for n in e.names)]
    out: list[Named] = []
    joined: dict[int, set[str]] = {}
    for entity in entities:
        alone = entity.kind == "PER" and all(" " not in n for n in entity.names)
        owners = [
            i
            for i, person in enumerate(full)
            if alone and any(n.rsplit(" ", 1)[-1] in entity.names for n in person.names)
        ]
        if owners:
            for i in owners:
                joined.setdefault(i, set()).update(entity.names)
            continue
        out.append(entity)
    for i, names in joined.items():
        person = full[i]
        out[out.index(person)] = Named(person.kind, person.names | names, person.label)
    return out


def gold_entities(mentions: Iterable[tuple[str, str]]) -> list[Named]:
    """The distinct gold names of a document, from its (text, label) mentions."""
    seen: dict[tuple[str, str], str] = {}
    for text, label in mentions:
        if label in DOCUMENT_KINDS and normalise(text):
            seen.setdefault((label, normalise(text)), text)
    return join_surnames(Named.of(kind, [text], text) for (kind, _), text in seen.items())


def score_document(gold: list[Named], system: Iterable[Named]) -> dict[str, Counts4]:
    """Counts per kind: (system entities right, system entities, gold found, gold)."""
    answers = join_surnames(system)
    out: dict[str, Counts4] = {}
    for kind in DOCUMENT_KINDS:
        g = [e for e in gold if e.kind == kind]
        s = [e for e in answers if e.kind == kind]
        gold_names = frozenset().union(*(e.names for e in g))
        system_names = frozenset().union(*(e.names for e in s))
        right = sum(1 for e in s if e.names & gold_names)
        found = sum(1 for e in g if e.names & system_names)
        out[kind] = (right, len(s), found, len(g))
    return out


def errors(gold: list[Named], system: Iterable[Named]) -> tuple[list[str], list[str]]:
    """(system entities not right, gold names not found), as "name (KIND)"."""
    answers = join_surnames(system)
    wrong = [
        f"{e.label} ({e.kind}"
        + (f", gold {g.kind})" if (g := _named(gold, e.names)) is not None else ")")
        for e in answers
        if not any(x.kind == e.kind and x.names & e.names for x in gold)
    ]
    missed = [
        f"{e.label} ({e.kind})"
        for e in gold
        if not any(x.kind == e.kind and x.names & e.names for x in answers)
    ]
    return wrong, missed


def _named(entities: list[Named], names: frozenset[str]) -> Named | None:
    return next((e for e in entities if e.names & names), None)


def mention_counts(
    gold: Iterable[tuple[int, int, str]], found: Iterable[tuple[int, int, str]]
) -> dict[str, Counts4]:
    """Counts per CoNLL type of exact (start, end, type) matches; labels are mapped first."""
    g = {(a, b, t) for a, b, t in gold if t in MENTION_TYPES}
    s = {(a, b, LABELS[t]) for a, b, t in found if t in LABELS}
    out: dict[str, Counts4] = {}
    for kind in MENTION_TYPES:
        gk = {m for m in g if m[2] == kind}
        sk = {m for m in s if m[2] == kind}
        tp = len(gk & sk)
        out[kind] = (tp, len(sk), tp, len(gk))
    return out
