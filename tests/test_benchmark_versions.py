"""Every recorded benchmark point carries the code version it was measured with, and a plot
never passes off points of several versions as one comparison (bench/results.py, plots.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bench.plots import RESULTS, MixedVersions, draw, version_note, version_notes
from bench.public_data import FILES
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


def test_the_plots_together_are_held_to_one_version(tmp_path: Path) -> None:
    one = {"a": section("abc", "abc"), "b": section("abc")}
    assert version_notes(one, ["a", "b"]) == {
        "a": ("all points: code version abc", False),
        "b": ("all points: code version abc", False),
    }
    two = {"a": section("abc", "abc"), "b": section("def")}
    notes = version_notes(two, ["a", "b"])
    assert notes["a"] == (
        "all points: code version abc; the plots together mix code versions: abc, def",
        True,
    )
    assert notes["b"][1] is True
    assert notes["b"][0].endswith("mix code versions: abc, def")
    with pytest.raises(MixedVersions, match=r"abc, def \(a abc; b def\)"):
        version_notes({**two, "one_version": True}, ["a", "b"])
    assert version_notes({**one, "one_version": True}, ["a", "b"])["a"][1] is False
    data = json.loads(RESULTS.read_text())
    data["one_version"] = True
    data["clusters"]["points"][0]["commit"] = "another"
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data))
    with pytest.raises(MixedVersions, match="another"):
        draw(results, tmp_path / "plots")
    assert not (tmp_path / "plots").exists() or not list((tmp_path / "plots").glob("*.svg"))


@pytest.mark.parametrize(
    ("script", "datasets", "changed"),
    [
        ("enrich_throughput.py", ("ecbplus", "changelog-podcast-transcripts"), ["--items", "600"]),
        ("enrich_throughput.py", ("ecbplus", "changelog-podcast-transcripts"), ["--mode", "cpu"]),
        ("clusters_eval.py", ("ecbplus", "wcep-wikitimes-2015-09"), ["--fit"]),
        ("clusters_eval.py", ("ecbplus", "wcep-wikitimes-2015-09"), ["--seeds", "1"]),
    ],
)
def test_recording_refuses_settings_other_than_the_plot_s(
    tmp_path: Path, script: str, datasets: tuple[str, ...], changed: list[str]
) -> None:
    for name in datasets:  # the files the --data check asks for, empty: the run stops before
        for file in FILES[name]:
            (tmp_path / name / file).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / file).touch()
    before = RESULTS.read_bytes()
    run = subprocess.run(
        [
            sys.executable,
            str(RESULTS.parent / script),
            "--data",
            str(tmp_path),
            "--record",
            *changed,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "--record needs" in run.stderr
    assert RESULTS.read_bytes() == before


def test_the_five_plots_are_of_one_recorded_version() -> None:
    data = json.loads(RESULTS.read_text())
    assert data["one_version"] is True
    names = ["search_latency", "enrichment", "ingestion", "webhooks", "clusters"]
    found = versions([point for name in names for point in data[name]["points"]])
    assert len(found) == 1
    assert found[0] != UNRECORDED
    assert "+modified" not in found[0]
