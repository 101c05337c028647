"""Clustering scores against gold labels: B-cubed and pairwise precision, recall and F1.

B-cubed (Bagga & Baldwin 1998): per item, precision is the share of its predicted cluster that
shares its gold story, recall the share of its gold story found in its predicted cluster; both
averaged over items. Pairwise (as in Priberam's eval.py): over all unordered item pairs, a pair in
one predicted cluster is a true positive when it is also in one gold story.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scores:
    precision: float
    recall: float

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    def __str__(self) -> str:
        return f"P {self.precision:.3f}  R {self.recall:.3f}  F1 {self.f1:.3f}"


def bcubed(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> Scores:
    n = len(gold)
    gold_sizes = Counter(gold)
    pred_sizes = Counter(predicted)
    joint = Counter(zip(gold, predicted, strict=True))
    precision = sum(joint[(g, p)] / pred_sizes[p] for g, p in zip(gold, predicted, strict=True))
    recall = sum(joint[(g, p)] / gold_sizes[g] for g, p in zip(gold, predicted, strict=True))
    return Scores(precision / n, recall / n)


def pairwise(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> Scores:
    def pairs(counts: Counter[Hashable] | Counter[tuple[Hashable, Hashable]]) -> int:
        return sum(k * (k - 1) // 2 for k in counts.values())

    true_pos = pairs(Counter(zip(gold, predicted, strict=True)))
    predicted_pos = pairs(Counter(predicted))
    gold_pos = pairs(Counter(gold))
    return Scores(
        true_pos / predicted_pos if predicted_pos else 1.0,
        true_pos / gold_pos if gold_pos else 1.0,
    )
