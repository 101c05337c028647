"""A logistic regression's weights read from a data file: the linker's trained decisions
(:mod:`herald.entities.kinds`, :mod:`herald.entities.admission`) run on them with no model
library at run time."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any


@dataclass(frozen=True, slots=True)
class LogisticModel:
    """Weights of a (multinomial) logistic regression: one row of weights per class, over
    standardised inputs."""

    classes: tuple[str, ...]
    features: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]  # one row per class
    bias: tuple[float, ...]
    mean: tuple[float, ...]  # standardisation of the inputs
    scale: tuple[float, ...]

    @staticmethod
    def from_json(
        data: Mapping[str, object],
        *,
        features: Sequence[str],
        classes: Sequence[str],
        script: str,
    ) -> LogisticModel:
        """The model ``data`` holds; refused (ValueError) unless it reads ``features`` and
        tells ``classes`` apart, as the Herald reading it computes them."""
        model = LogisticModel(
            classes=tuple(data["classes"]),  # type: ignore[arg-type]
            features=tuple(data["features"]),  # type: ignore[arg-type]
            weights=tuple(tuple(row) for row in data["weights"]),  # type: ignore[attr-defined]
            bias=tuple(data["bias"]),  # type: ignore[arg-type]
            mean=tuple(data["mean"]),  # type: ignore[arg-type]
            scale=tuple(data["scale"]),  # type: ignore[arg-type]
        )
        if model.features != tuple(features) or set(model.classes) != set(classes):
            raise ValueError(
                "the model's features or classes are not the ones this Herald computes:"
                f" retrain it with {script}"
            )
        return model

    def probabilities(self, row: Sequence[float]) -> dict[str, float]:
        """Probability of each class for the inputs ``row`` (in the order of ``features``). An
        input the row lacks (NaN: a recogniser that gives no confidence) reads as its mean on
        the training data, so the other inputs decide."""
        x = [
            0.0 if math.isnan(v) else (v - m) / s
            for v, m, s in zip(row, self.mean, self.scale, strict=True)
        ]
        scores = [
            b + sum(w * v for w, v in zip(weights, x, strict=True))
            for weights, b in zip(self.weights, self.bias, strict=True)
        ]
        top = max(scores)
        exp = [math.exp(s - top) for s in scores]
        total = sum(exp)
        return {c: e / total for c, e in zip(self.classes, exp, strict=True)}


def shipped(file: str) -> dict[str, Any]:
    """The data of a model file shipped with Herald (``herald/data/linker/<file>``)."""
    text = resources.files("herald.data").joinpath(f"linker/{file}").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
