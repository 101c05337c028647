"""The recorded benchmark figures (bench/results.json) that docs/benchmarks.md plots.

A benchmark run with ``--record`` replaces its own point in the file; `python bench/plots.py`
then redraws the plots. Runs are recorded only when asked: a run on a busy machine should not
replace a figure measured on a quiet one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results.json"


def record(section: str, key: dict[str, Any], values: dict[str, Any], path: Path = RESULTS) -> None:
    """Set ``values`` on the point of ``section`` whose fields equal ``key`` (added if none)."""
    data = json.loads(path.read_text())
    points: list[dict[str, Any]] = data[section]["points"]
    for point in points:
        if all(point.get(name) == value for name, value in key.items()):
            point.update(values)
            break
    else:
        points.append({**key, **values})
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
