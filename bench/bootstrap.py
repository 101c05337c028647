"""95% bootstrap confidence intervals for precision, recall and F1, by resampling documents.

A figure measured on a few hundred documents moves by chance with the documents drawn; the
interval says how far. Each document contributes counts (``COUNTS``: the system's answers that
are right, its answers, the gold items it found, the gold items); a resample draws as many
documents as there are, with replacement, adds their counts up and computes the figure again.
The interval is the 2.5th to 97.5th percentile of 1,000 resamples (seeded: the same documents
give the same interval). For two systems on the same documents, :func:`paired_difference`
resamples the documents once for both, so the interval is the difference's own: when it
contains 0, neither system is shown to be better, and a change whose difference lies inside the
interval is no gain.

Counts per document are rows of a ``(documents, 4)`` array; for mention-level scoring the right
answers and the found gold items are the same number (true positives).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

COUNTS = ("right", "answers", "found", "gold")
RESAMPLES = 1000
SEED = 2003
LEVEL = 0.95

Counts = NDArray[np.float64]  # (..., 4): right, answers, found, gold
Metric = Callable[[Counts], NDArray[np.float64]]


@dataclass(frozen=True, slots=True)
class Interval:
    point: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.point:.3f} [{self.low:.3f}, {self.high:.3f}]"

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def _ratio(top: NDArray[np.float64], bottom: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.zeros(np.broadcast(top, bottom).shape)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def precision(counts: Counts) -> NDArray[np.float64]:
    return _ratio(counts[..., 0], counts[..., 1])


def recall(counts: Counts) -> NDArray[np.float64]:
    return _ratio(counts[..., 2], counts[..., 3])


def f1(counts: Counts) -> NDArray[np.float64]:
    p, r = precision(counts), recall(counts)
    return _ratio(2 * p * r, p + r)


METRICS: dict[str, Metric] = {"P": precision, "R": recall, "F1": f1}


def as_counts(rows: Sequence[Sequence[float]]) -> Counts:
    """Per-document counts as the array the functions here take."""
    return np.asarray(rows, dtype=np.float64).reshape(-1, len(COUNTS))


def _resamples(documents: int, resamples: int, seed: int) -> NDArray[np.int64]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, documents, size=(resamples, documents))


def interval(
    counts: Counts,
    metric: Metric,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> Interval:
    """``metric`` over all documents, with its bootstrap interval."""
    point = float(metric(counts.sum(axis=0)))
    if len(counts) == 0:
        return Interval(point, point, point)
    drawn = metric(counts[_resamples(len(counts), resamples, seed)].sum(axis=1))
    return _percentiles(point, drawn, level)


def paired_difference(
    counts_a: Counts,
    counts_b: Counts,
    metric: Metric,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> Interval:
    """``metric(A) - metric(B)`` on the same documents (row i of both is document i), with the
    interval of the difference when both are resampled with the same draws."""
    if counts_a.shape != counts_b.shape:
        raise ValueError("the two systems must be scored on the same documents")
    point = float(metric(counts_a.sum(axis=0)) - metric(counts_b.sum(axis=0)))
    if len(counts_a) == 0:
        return Interval(point, point, point)
    draws = _resamples(len(counts_a), resamples, seed)
    drawn = metric(counts_a[draws].sum(axis=1)) - metric(counts_b[draws].sum(axis=1))
    return _percentiles(point, drawn, level)


def prf(counts: Counts, *, resamples: int = RESAMPLES, seed: int = SEED) -> dict[str, Interval]:
    """Precision, recall and F1 with their intervals (keys ``P``, ``R``, ``F1``)."""
    return {
        name: interval(counts, metric, resamples=resamples, seed=seed)
        for name, metric in METRICS.items()
    }


def _percentiles(point: float, drawn: NDArray[np.float64], level: float) -> Interval:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(drawn, [tail, 100 - tail])
    return Interval(point, float(low), float(high))
