"""A two-class logistic regression fitted by scikit-learn, as the data file Herald reads
(``herald.entities.logistic.LogisticModel``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def write_binary(
    out: Path,
    model: Any,
    *,
    classes: Sequence[str],
    features: Sequence[str],
    mean: np.ndarray,
    scale: np.ndarray,
    about: dict[str, object],
) -> None:
    """Write ``model`` (scikit-learn's LogisticRegression over inputs standardised by ``mean``
    and ``scale``) to ``out``, with ``about`` (what it is, its data, its dev figures) first."""
    data = {
        **about,
        # two classes, the first with zero weights: the softmax of (0, z) is the logistic of z
        "classes": list(classes),
        "features": list(features),
        "weights": [[0.0] * len(features), [round(float(w), 6) for w in model.coef_[0]]],
        "bias": [0.0, round(float(model.intercept_[0]), 6)],
        "mean": [round(float(m), 6) for m in mean],
        "scale": [round(float(s), 6) for s in scale],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
