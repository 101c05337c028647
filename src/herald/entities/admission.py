"""Stage 6b, admission: a name the rules left out, admitted as a new entity by a trained model.

The hand-set rules of :mod:`herald.entities.discovery` keep a new name only on strong evidence:
two mentions, a word that says what it is, a kind the votes agree on. On news that is often too
strict: a results table names each club once by its town ("Pohang", "Minnesota"), and those are
organisations. A group the rules leave out, that is still shaped like a name and of no list of
what is no name (:func:`herald.entities.discovery.not_a_name`, :func:`refused_as`), is admitted
when a logistic regression over what the kind model reads of it (:mod:`herald.entities.kinds`)
and the kind model's own probabilities says it names a person, organisation or place of the kind
the kind model gives it with probability at least ``LinkingConfig.admission_threshold``. The
weights ship in ``herald/data/linker/admission.json`` (``scripts/train_admission_model.py``
trains them on annotated news; its README gives the data and the scores).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from herald.entities.cues import KIND_GROUP, ORG, PERSON, PLACE
from herald.entities.discovery import discovered, new_name
from herald.entities.document import Choice, Reading, is_demonym
from herald.entities.kind_stage import evidence_of, likeliest
from herald.entities.kinds import CLASSES
from herald.entities.kinds import FEATURES as KIND_FEATURES
from herald.entities.kinds import bundled as kinds_model
from herald.entities.kinds import features as kind_features
from herald.entities.logistic import LogisticModel, shipped
from herald.entities.names import alias_key
from herald.entities.refusals import not_a_name, refused_as
from herald.entities.shapes import without_title

MODEL_FILE: Final = "admission.json"
RIGHT: Final = "right"
CLASSES_ADMITTED: Final = ("wrong", RIGHT)  # the model's classes: is an admitted name right
KINDS: Final = (PERSON, ORG, PLACE)
FEATURES: Final = (
    *KIND_FEATURES,
    *(f"p_{c}" for c in CLASSES),
    *(f"kind_{k}" for k in KINDS),
    "p_kind",
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A group the rules left out, as the admission model reads it."""

    kind: str  # the kind group it would be admitted as (the kind model's likeliest of KINDS)
    name: str
    features: list[float]


def candidate(read: Reading) -> Candidate | None:
    """What the admission model reads of a group the rules left out, or None when no model
    may admit it: a nationality, or a name the lists or its form refuse."""
    kb, doc, group = read.kb, read.doc, read.group
    if is_demonym(group):
        return None  # nationalities link to known places only
    if all((m.start, m.end) in doc.pieces for m in group.mentions):
        return None  # cut from a longer name: no label of the recogniser's is its own
    name = new_name(doc, group)
    if not_a_name(doc, group, name):
        return None
    kind, row = admission_row(kind_features(evidence_of(read)))
    if kind == PERSON:
        name = without_title(name)
        if len(name.split()) < 2:
            return None  # a person named by one word is the lone-people stage's to decide
    if not name or refused_as(kb, doc, group, kind, name):
        return None
    if any(KIND_GROUP[r.entity_kind] == kind for r in kb.lookup(alias_key(name))):
        # The knowledge base has a thing of that name and kind, and disambiguation decided the
        # item does not mean it ("Apple" in an article on the fruit): no second one.
        return None
    return Candidate(kind, name, row)


def admission_row(kind_row: list[float]) -> tuple[str, list[float]]:
    """The kind a group would be admitted as and the admission model's inputs, from what the
    kind model reads of it (``kind_row``, :func:`herald.entities.kinds.features`)."""
    p = kinds_model().probabilities(kind_row)
    kind = likeliest(p, KINDS)
    return kind, [
        *kind_row,
        *(p[c] for c in CLASSES),
        *(float(kind == k) for k in KINDS),
        p[kind],
    ]


def admit(read: Reading) -> Choice | None:
    """A new entity for a group the rules left out, with the model's probability that it is
    right as its confidence, or None."""
    if read.config.admission_threshold >= 1.0:
        return None
    found = candidate(read)
    if found is None:
        return None
    confidence = round(probability(found.features), 3)
    if confidence < read.config.admission_threshold:
        return None
    return discovered(read.group, found.kind, found.name), confidence


def read_model(data: Mapping[str, object]) -> LogisticModel:
    """The admission model ``data`` holds (refused unless it reads this Herald's features)."""
    return LogisticModel.from_json(
        data, features=FEATURES, classes=CLASSES_ADMITTED, script="scripts/train_admission_model.py"
    )


def probability(row: Sequence[float]) -> float:
    """The bundled model's probability that a candidate with the inputs ``row`` is right."""
    return bundled().probabilities(row)[RIGHT]


@cache
def bundled() -> LogisticModel:
    """The admission model shipped with Herald (``herald/data/linker/admission.json``)."""
    return read_model(shipped(MODEL_FILE))
