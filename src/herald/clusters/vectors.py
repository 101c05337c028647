"""Sparse weighted bags (terms, entities, phrases) as plain dicts, and the few operations on them.

Every operation that picks "the top k" breaks ties by key, so results never depend on dict order
and the clusterer stays deterministic for a given arrival order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

SparseVector = dict[str, float]


def log_tf(counts: Mapping[str, float]) -> SparseVector:
    """Sublinear term frequency (1 + ln tf): a word said ten times is not ten times the topic."""
    return {key: 1.0 + math.log(value) for key, value in counts.items() if value >= 1.0}


def normalized(vector: Mapping[str, float]) -> SparseVector:
    norm = math.sqrt(sum(value * value for value in vector.values()))
    if norm == 0.0:
        return {}
    return {key: value / norm for key, value in vector.items()}


def weighted(vector: Mapping[str, float], weight: Callable[[str], float]) -> SparseVector:
    return {key: value * weight(key) for key, value in vector.items()}


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Cosine of two non-negative sparse vectors (0 when either is empty)."""
    if len(a) > len(b):
        a, b = b, a
    dot = sum(value * b.get(key, 0.0) for key, value in a.items())
    if dot == 0.0:
        return 0.0
    norm_a = math.sqrt(sum(v * v for v in a.values()))
    norm_b = math.sqrt(sum(v * v for v in b.values()))
    return dot / (norm_a * norm_b)


def add_into(target: SparseVector, vector: Mapping[str, float], scale: float = 1.0) -> None:
    for key, value in vector.items():
        target[key] = target.get(key, 0.0) + value * scale


def top_keys(vector: Mapping[str, float], k: int) -> list[str]:
    """The ``k`` heaviest keys, heaviest first; equal weights in key order."""
    return [key for key, _ in sorted(vector.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def pruned(vector: Mapping[str, float], k: int) -> SparseVector:
    """Only the ``k`` heaviest entries: keeps a cluster's profile a bounded size."""
    if len(vector) <= k:
        return dict(vector)
    return {key: vector[key] for key in top_keys(vector, k)}
