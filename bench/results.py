"""The recorded benchmark figures (bench/results.json) that docs/benchmarks.md plots.

A benchmark run with ``--record`` replaces its own point in the file; `python bench/plots.py`
then redraws the plots. Runs are recorded only when asked: a run on a busy machine should not
replace a figure measured on a quiet one.

Every recorded point carries the code version it was measured with (``commit``: the checkout's
commit, with ``+modified`` when files under src/ or bench/ differed from it), so a plot can show
points of one version only (bench/plots.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results.json"
ROOT = RESULTS.parents[1]
UNRECORDED = "not recorded"  # the version of points recorded before versions were


def code_version(root: Path = ROOT) -> str:
    """The commit of the checkout at ``root`` (12 hex digits), ``+modified`` if the code that
    runs (src/, bench/) differs from it; ``unknown`` outside a git checkout."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "src", "bench"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    # results.json itself changes as runs are recorded: that is not a change of the code
    changed_files = [line[3:] for line in changed.splitlines() if line[3:] != "bench/results.json"]
    return f"{commit}+modified" if changed_files else commit


def record(
    section: str,
    key: dict[str, Any],
    values: dict[str, Any],
    path: Path = RESULTS,
    version: str | None = None,
) -> None:
    """Set ``values`` on the point of ``section`` whose fields equal ``key`` (added if none),
    with the code version measured (default: this checkout's, :func:`code_version`)."""
    data = json.loads(path.read_text())
    points: list[dict[str, Any]] = data[section]["points"]
    stamped = {**values, "commit": version or code_version()}
    for point in points:
        if all(point.get(name) == value for name, value in key.items()):
            point.update(stamped)
            break
    else:
        points.append({**key, **stamped})
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def versions(points: list[dict[str, Any]]) -> list[str]:
    """The code versions of ``points``, each once, in order of first appearance."""
    return list(dict.fromkeys(str(p.get("commit", UNRECORDED)) for p in points))
