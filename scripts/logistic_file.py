"""A two-class logistic regression fitted by scikit-learn (:func:`fit_binary`), as the data
file Herald reads (:func:`write_binary`, ``herald.entities.logistic.LogisticModel``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


def standardisation(x_train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and scale of each input over the training rows; an input a row lacks (NaN: a
    recogniser that gives no confidence) is left out of them."""
    mean = np.nanmean(x_train, axis=0)
    scale = np.nanstd(x_train, axis=0)
    scale[(scale == 0) | np.isnan(scale)] = 1.0
    return np.nan_to_num(mean), scale


def standardised(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``x`` standardised; an input a row lacks reads as its training mean (0), as
    ``herald.entities.logistic.LogisticModel`` reads it at run time."""
    return np.nan_to_num((x - mean) / scale, nan=0.0)


def with_inputs_unknown(
    x: np.ndarray, y: np.ndarray, features: Sequence[str], unknown: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``x`` (labels ``y``) and a copy of each with the inputs ``unknown`` left
    unknown (NaN), so that the model learns to decide without them too: a recogniser that gives
    no confidence (spaCy's) leaves them unknown when Herald runs."""
    columns = [list(features).index(name) for name in unknown]
    masked = x.copy()
    masked[:, columns] = np.nan
    return np.concatenate([x, masked]), np.concatenate([y, y])


@dataclass(frozen=True)
class Fitted:
    """The kept fit: scikit-learn's LogisticRegression over inputs standardised by ``mean`` and
    ``scale``, its regularisation strength and its dev log loss and ROC AUC."""

    model: Any
    mean: np.ndarray
    scale: np.ndarray
    c: float
    loss: float
    auc: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        """The probability of the second class for each row of ``x``."""
        p: np.ndarray = self.model.predict_proba(standardised(x, self.mean, self.scale))[:, 1]
        return p


def fit_binary(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    strengths: Sequence[float],
) -> Fitted:
    """A logistic regression fitted on the train rows (inputs standardised) for each
    regularisation strength; the one with the lowest log loss on the dev rows is kept. Each
    strength's dev figures are printed."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss, roc_auc_score

    mean, scale = standardisation(x_train)
    best: Fitted | None = None
    for c in strengths:
        model = LogisticRegression(C=c, max_iter=3000).fit(
            standardised(x_train, mean, scale), y_train
        )
        fitted = Fitted(model, mean, scale, c, 0.0, 0.0)
        p = fitted.probability(x_dev)
        loss, auc = log_loss(y_dev, p), roc_auc_score(y_dev, p)
        print(f"C={c:g}: dev log loss {loss:.4f}, ROC AUC {auc:.4f}")
        if best is None or loss < best.loss:
            best = Fitted(model, mean, scale, c, loss, auc)
    assert best is not None
    return best


def write_binary(
    out: Path,
    fitted: Fitted,
    *,
    classes: Sequence[str],
    features: Sequence[str],
    about: dict[str, object],
) -> None:
    """Write ``fitted`` to ``out``, with ``about`` (what it is, its data, its dev figures)
    first."""
    model, mean, scale = fitted.model, fitted.mean, fitted.scale
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
