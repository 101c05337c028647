"""The link model: whether the known entity the disambiguation stage ranks first is one the
item names, learned from annotated news.

The candidates of a group are ranked by a hand-weighted score of kind fit, prior, context,
geography and name match (:mod:`herald.entities.disambiguation`; the annotated news this model
learns from cannot order them: the candidates a group's kind admits are namesakes of one kind,
and it names a kind, not an identity). Whether the first is linked
at all is a logistic regression over those five, the first's lead over the second and whether
the item is a sports report
(``scripts/train_link_model.py`` trains it on annotated news: a first candidate is right when
the item names a thing of its kind there), shipped as ``herald/data/linker/links.json``. A
known entity is linked when the model gives it at least ``LinkingConfig.link_threshold``
(chosen on dev); otherwise the group goes on to the new-entity stage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Final

from herald.entities.logistic import LogisticModel, shipped

MODEL_FILE: Final = "links.json"
RIGHT: Final = "right"
CLASSES: Final = ("wrong", RIGHT)
FEATURES: Final = (
    *("fit", "prior", "context", "geography", "name_match", "margin"),
    # a sports report, where a place's name often stands for its club ("Somerset beat Kent")
    *("sports", "sports_x_fit", "sports_x_prior"),
)


def read_model(data: Mapping[str, object]) -> LogisticModel:
    """The link model ``data`` holds (refused unless it reads this Herald's features)."""
    return LogisticModel.from_json(
        data, features=FEATURES, classes=CLASSES, script="scripts/train_link_model.py"
    )


def probability(row: Sequence[float]) -> float:
    """The bundled model's probability that a first-ranked candidate with the inputs ``row``
    (in the order of :data:`FEATURES`) is right."""
    return bundled().probabilities(row)[RIGHT]


@cache
def bundled() -> LogisticModel:
    """The link model shipped with Herald (``herald/data/linker/links.json``)."""
    return read_model(shipped(MODEL_FILE))
