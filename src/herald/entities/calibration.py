"""How often a link is right: the linker's score mapped to a calibrated ``confidence``.

The linker scores each link from how well name, kind, prior and context fit. That score orders
links but is no probability. A monotone map fitted on annotated news (isotonic regression,
``scripts/fit_link_calibration.py``) turns it into one: of the links given confidence 0.8, about
80% were right on the development split. A link to a knowledge-base entity and a new entity
are mapped separately (their scores come from different stages), for each way of deciding a
name's kind. The map ships as data, ``herald/data/linker/calibration.json``; without it the
score is reported as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

KNOWN = "kb"  # a link to an entity of the knowledge base
DISCOVERED = "discovered"  # a new entity the linker made


@dataclass(frozen=True)
class Calibration:
    """Piecewise-linear maps from score to confidence, by ``"{kinds}:{origin}"``."""

    maps: dict[str, tuple[tuple[float, ...], tuple[float, ...]]]

    def confidence(self, score: float, *, kinds: str, origin: str) -> float:
        points = self.maps.get(f"{kinds}:{origin}")
        if points is None:
            return score
        xs, ys = points
        return round(float(np.interp(score, xs, ys)), 3)

    def to_json(self) -> dict[str, object]:
        return {
            "maps": {
                key: {"score": list(xs), "confidence": list(ys)}
                for key, (xs, ys) in sorted(self.maps.items())
            }
        }

    @staticmethod
    def from_json(data: dict[str, object]) -> Calibration:
        maps = data.get("maps")
        if not isinstance(maps, dict):
            raise ValueError("a calibration file holds an object 'maps'")
        out: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {}
        for key, points in maps.items():
            xs = tuple(float(x) for x in points["score"])
            ys = tuple(float(y) for y in points["confidence"])
            if len(xs) != len(ys) or not xs or list(xs) != sorted(xs):
                raise ValueError(f"calibration {key}: scores must rise, one confidence each")
            if any(not 0.0 <= y <= 1.0 for y in ys) or list(ys) != sorted(ys):
                raise ValueError(f"calibration {key}: confidences must rise within 0-1")
            out[str(key)] = (xs, ys)
        return Calibration(out)


@lru_cache(maxsize=1)
def bundled() -> Calibration | None:
    """The calibration shipped with Herald, if any."""
    path = resources.files("herald.data").joinpath("linker/calibration.json")
    if not path.is_file():
        return None
    return Calibration.from_json(json.loads(path.read_text(encoding="utf-8")))
