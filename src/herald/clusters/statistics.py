"""Online document frequencies: how specific a term or entity is, learnt from the stream itself.

Each distinct article is counted once (syndicated copies would otherwise make a wire story's words
look common). The inverse document frequency is the smoothed form ``ln((1 + n) / (1 + df)) + 1``,
so an unseen key is the most specific and a key in every document still weighs 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(slots=True)
class DocumentFrequencies:
    documents: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def observe(self, keys: Iterable[str]) -> None:
        """Count one document containing ``keys`` (each key once, whatever its frequency)."""
        self.documents += 1
        counts = self.counts
        for key in set(keys):
            counts[key] = counts.get(key, 0) + 1

    def idf(self, key: str) -> float:
        return math.log((1 + self.documents) / (1 + self.counts.get(key, 0))) + 1.0

    def to_state(self) -> dict[str, object]:
        return {"documents": self.documents, "counts": dict(self.counts)}

    @classmethod
    def from_state(cls, state: Mapping[str, object]) -> DocumentFrequencies:
        documents = state.get("documents", 0)
        counts = state.get("counts", {})
        if not isinstance(documents, int) or not isinstance(counts, dict):
            raise ValueError("malformed document-frequency state")
        return cls(documents, {str(k): int(v) for k, v in counts.items()})
