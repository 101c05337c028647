"""The second-stage score: a logistic model over relevance features, and the result threshold.

``score = sigmoid(bias + weights . features)`` estimates the probability that an item is relevant
to the query. It is in [0, 1], orders the results, and means the same for every query, so one
threshold serves all of them: results scoring under it are omitted. The weights and the threshold
are fitted on the SciFact train split by ``bench/search_scifact_tune.py``, which writes
``rerank_params.py``; nothing here is set by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from herald.search import rerank_params
from herald.search.features import FEATURE_NAMES, Floats
from herald.search.lexical import FieldBoosts


@dataclass(frozen=True, slots=True)
class RelevanceModel:
    weights: tuple[float, ...]
    bias: float
    threshold: float
    boosts: FieldBoosts

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURE_NAMES):
            raise ValueError("one weight per feature")

    def score(self, features: Floats) -> Floats:
        # einsum, not BLAS: a multi-threaded BLAS call this small costs more than it computes
        z: Floats = np.einsum("ij,j->i", features, np.asarray(self.weights, dtype=np.float64))
        scores: Floats = 1.0 / (1.0 + np.exp(-np.clip(z + self.bias, -40.0, 40.0)))
        return scores


def default_model() -> RelevanceModel:
    if rerank_params.FEATURES != FEATURE_NAMES:
        raise RuntimeError("rerank_params.py is stale: run bench/search_scifact_tune.py")
    return RelevanceModel(
        weights=rerank_params.WEIGHTS,
        bias=rerank_params.BIAS,
        threshold=rerank_params.THRESHOLD,
        boosts=FieldBoosts(**rerank_params.FIELD_BOOSTS),
    )
