"""The kind stage: what a group of mentions names, decided in one place by a learned model.

A group (the mentions of one name in an item) is described by the evidence the linker gathers
(:class:`KindEvidence`): the recogniser's labels, the kinds the knowledge base knows the name as
and how well known each is, the words around the mentions (:mod:`herald.entities.cues`, summed
into a distribution), the name's shape and endings, and the item (a sports report, a place
written after the name). A multinomial logistic regression, trained on annotated news
(``scripts/train_kind_model.py``) and shipped as a small data file, turns that into a probability
for each kind and for "no entity".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from herald.entities.cues import EVENT, GROUPS, ORG, PERSON, PLACE, PRODUCT
from herald.entities.logistic import LogisticModel, shipped

NONE: Final = "none"
OTHER: Final = "other"  # a name of no linked kind the model tells apart (nationality, work)
CLASSES: Final = (PERSON, ORG, PLACE, OTHER, NONE)
# The recogniser's labels as the model reads them: any recogniser's places are one ("GPE" of
# Herald's, "GPE", "LOC" and "FAC" of spaCy's), so the model serves both.
LABELS: Final = ("PERSON", "ORG", "PLACE", "NORP", "EVENT", "PRODUCT")
_LABEL_OF: Final = {"GPE": "PLACE", "LOC": "PLACE", "FAC": "PLACE"}
MODEL_FILE: Final = "kinds.json"


@dataclass(frozen=True, slots=True)
class KindEvidence:
    """What the linker knows of a group when it decides its kind."""

    name: str
    labels: Sequence[str]  # the recogniser's label of each mention
    scores: Sequence[float | None]  # the recogniser's confidence in each mention, if given
    heuristic: Mapping[str, float]  # labels and the words around them (cues), over GROUPS
    known: Mapping[str, float]  # per kind group: the best prior of a known entity of that name
    title_share: float  # mentions in the title
    start_share: float  # mentions that open a sentence
    sports: bool
    team: bool  # a mention reads as a game's result ("beat Kent")
    located: bool  # a region or country is written after it ("Harriman, Tennessee")
    edition: bool  # "the 79th Academy Awards"
    demonym: bool  # known as a nationality ("French")
    given_name: bool  # opens with a known first name
    endings: Mapping[str, bool]  # the name's last word is one of a list's (place, org, ...)


def features(e: KindEvidence) -> list[float]:
    """The model's inputs, in the order of :data:`FEATURES`."""
    n = len(e.labels) or 1
    read = [_LABEL_OF.get(label, label) for label in e.labels]
    shares = [sum(label == name for label in read) / n for name in LABELS]
    words = e.name.split()
    letters = [c for c in e.name if c.isalpha()]
    org_label = shares[LABELS.index("ORG")]
    known_place = e.known.get(PLACE, 0.0)
    # NaN when the recogniser gave no confidence: the model then reads its training mean
    given = [s for s in e.scores if s is not None]
    mean_score = sum(given) / len(given) if given else math.nan
    return [
        *shares,
        *(e.heuristic.get(g, 0.0) for g in GROUPS),
        *(e.known.get(g, 0.0) for g in GROUPS),
        float(any(v > 0 for v in e.known.values())),
        float(len(words) == 1),
        float(len(words) == 2),
        float(len(words) >= 3),
        float(bool(letters) and all(c.isupper() for c in letters)),
        float(any(c.isdigit() for c in e.name)),
        math.log1p(len(e.labels)),
        float(len(e.labels) == 1),
        e.title_share,
        e.start_share,
        float(e.sports),
        float(e.team),
        float(e.located),
        float(e.edition),
        float(e.demonym),
        float(e.given_name),
        *(float(e.endings.get(k, False)) for k in ENDINGS),
        # what a linear model cannot combine by itself
        float(e.sports) * org_label,
        float(e.sports) * known_place,
        org_label * known_place,
        float(e.sports) * float(len(words) == 1),
        mean_score,
        min(given, default=math.nan),
    ]


# The inputs a recogniser that gives no confidence (spaCy's) leaves unknown.
CONFIDENCE: Final = ("recogniser_confidence", "recogniser_confidence_min")
ENDINGS: Final = ("place", "org", "either", "event", "firm", "honour", "place_start")
FEATURES: Final = (
    *(f"label_{name}" for name in LABELS),
    *(f"heuristic_{g}" for g in GROUPS),
    *(f"known_{g}" for g in GROUPS),
    "known_any",
    "one_word",
    "two_words",
    "three_or_more_words",
    "all_capitals",
    "has_digit",
    "log_mentions",
    "one_mention",
    "title_share",
    "sentence_start_share",
    "sports",
    "team",
    "located",
    "edition",
    "demonym",
    "given_name",
    *(f"ending_{k}" for k in ENDINGS),
    "sports_x_org_label",
    "sports_x_known_place",
    "org_label_x_known_place",
    "sports_x_one_word",
    "recogniser_confidence",
    "recogniser_confidence_min",
)


def read_model(data: Mapping[str, object]) -> LogisticModel:
    """The kind model ``data`` holds (refused unless it reads this Herald's features)."""
    return LogisticModel.from_json(
        data, features=FEATURES, classes=CLASSES, script="scripts/train_kind_model.py"
    )


def kind_groups(p: Mapping[str, float], evidence: KindEvidence) -> dict[str, float]:
    """The model's probabilities as the linker's kind groups (summing to 1 without "no
    entity"): a name of another kind is an event when its labels, its last word or an edition
    say so, a product when its labels do, and else either, half and half."""
    named = 1.0 - p.get(NONE, 0.0) or 1.0
    out = {g: p.get(g, 0.0) / named for g in (PERSON, ORG, PLACE)}
    other = p.get(OTHER, 0.0) / named
    event = evidence.edition or "EVENT" in evidence.labels or evidence.endings.get("event", False)
    product = "PRODUCT" in evidence.labels
    if event == product:
        out[EVENT] = out[PRODUCT] = other / 2
    else:
        out[EVENT] = other if event else 0.0
        out[PRODUCT] = other if product else 0.0
    return out


@cache
def bundled() -> LogisticModel:
    """The kind model shipped with Herald (``herald/data/linker/kinds.json``)."""
    return read_model(shipped(MODEL_FILE))
