"""Every recorded benchmark point carries the code version it was measured with, and a plot
never passes off points of several versions as one comparison (bench/results.py, plots.py)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from bench.plots import RESULTS, MixedVersions, draw, version_note
from bench.results import UNRECORDED, code_version, record, versions


def section(*commits: str | None, one_version: bool = False) -> dict[str, object]:
    points = [{"x": i} if c is None else {"x": i, "commit": c} for i, c in enumerate(commits)]
    return {"points": points, **({"one_version": True} if one_version else {})}


def test_a_recorded_point_carries_the_checkout_s_commit(tmp_path: Path) -> None:
    copy = tmp_path / "results.json"
    copy.write_text(RESULTS.read_text())
    record("ingestion", {"backend": "SQLite", "mode": "new"}, {"items_per_s": 3}, copy)
    point = json.loads(copy.read_text())["ingestion"]["points"][-1]
    assert point["commit"] == code_version()
    head = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert re.fullmatch(re.escape(head) + r"(\+modified)?", point["commit"])


def test_outside_a_checkout_the_version_is_unknown(tmp_path: Path) -> None:
    assert code_version(tmp_path) == "unknown"


def test_one_version_is_stated_and_mixed_ones_are_marked() -> None:
    assert version_note("s", section("abc", "abc")) == ("all points: code version abc", False)
    caption, mixed = version_note("s", section("abc", "def", None))
    assert mixed
    assert caption == f"points mix code versions: abc, def, {UNRECORDED}"
    assert version_note("s", section(None, None)) == (
        "code version of the points not recorded",
        True,
    )
    assert versions(section("b", "a", "b")["points"]) == ["b", "a"]  # type: ignore[arg-type]


def test_a_one_version_plot_with_mixed_points_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MixedVersions, match="abc, def"):
        version_note("s", section("abc", "def", one_version=True))
    with pytest.raises(MixedVersions):
        version_note("s", section("abc", None, one_version=True))
    assert version_note("s", section("abc", one_version=True))[1] is False
    data = json.loads(RESULTS.read_text())
    data["search_latency"]["one_version"] = True
    data["search_latency"]["points"][0]["commit"] = "another"
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data))
    with pytest.raises(MixedVersions, match="search_latency"):
        draw(results, tmp_path / "plots")
    assert not (tmp_path / "plots").exists() or not list((tmp_path / "plots").glob("*.svg"))


def test_the_search_latency_plot_is_of_one_recorded_version() -> None:
    data = json.loads(RESULTS.read_text())["search_latency"]
    assert data["one_version"] is True
    found = versions(data["points"])
    assert len(found) == 1
    assert found[0] != UNRECORDED
    sizes = {(p["items"], p["backend"], p["query"]) for p in data["points"]}
    assert sizes == {
        (items, backend, query)
        for items in (100_000, 1_000_000)
        for backend in ("embedded", "postgresql")
        for query in ("first-time", "repeated")
    }
