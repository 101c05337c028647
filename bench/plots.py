"""Draw the benchmark plots of docs/benchmarks.md from bench/results.json.

    python bench/plots.py [--results bench/results.json] [--out docs/images/benchmarks]

The SVGs are deterministic (fixed hash salt, no date), so a re-run with the same figures gives
the same files and a test can check the committed plots are current.

Each plot states the code version its points were measured with (their ``commit``,
bench/results.py). A section marked ``"one_version": true`` must hold points of one recorded
version, or the plots are not drawn; any other plot whose points mix versions (or predate the
recording of versions) is drawn with that said in red across its foot, so a reader never takes
a comparison of two code versions for one of sizes or backends.

The plots are also held to one version together: when the points of the plots (all of them,
across sections) come from more than one code version, every plot says so in red, naming the
versions; with ``"one_version": true`` at the top of the results file the plots are then not
drawn at all.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # after use(): the backend must be chosen first

try:
    from bench.results import UNRECORDED, versions
except ImportError:  # run as a script: bench/ itself is on the path
    from results import UNRECORDED, versions

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results.json"
OUT = ROOT / "docs" / "images" / "benchmarks"


class MixedVersions(ValueError):
    """A section that must be plotted from one code version holds points of several."""


def version_note(name: str, section: dict[str, Any]) -> tuple[str, bool]:
    """The caption stating the code version of a section's points, and whether they mix
    versions (or lack one); raises :class:`MixedVersions` for a ``one_version`` section."""
    found = versions(section["points"])
    if len(found) == 1 and found[0] != UNRECORDED:
        return f"all points: code version {found[0]}", False
    if section.get("one_version"):
        raise MixedVersions(
            f"{name}: the points come from code versions {', '.join(found)}; re-run the "
            "benchmark for every point at one version (see docs/benchmarks.md)"
        )
    if found == [UNRECORDED]:
        return "code version of the points not recorded", True
    return f"points mix code versions: {', '.join(found)}", True


Note = tuple[str, bool]


def version_notes(data: dict[str, Any], names: list[str]) -> dict[str, Note]:
    """The caption of each plotted section: its own version (:func:`version_note`) and, when the
    plots' points together come from several versions, those versions in red; raises
    :class:`MixedVersions` for that when the results file says ``"one_version": true``."""
    notes = {name: version_note(name, data[name]) for name in names}
    found = versions([point for name in names for point in data[name]["points"]])
    if len(found) == 1 and found[0] != UNRECORDED:
        return notes
    each = "; ".join(f"{name} {', '.join(versions(data[name]['points']))}" for name in names)
    if data.get("one_version"):
        raise MixedVersions(
            f"the plots' points come from code versions {', '.join(found)} ({each}); re-run "
            "every plotted benchmark at one version (see docs/benchmarks.md)"
        )
    return {
        name: (f"{caption}; the plots together mix code versions: {', '.join(found)}", True)
        for name, (caption, _) in notes.items()
    }


def _save(fig: Any, path: Path, note: Note, bottom: float = 0.06) -> None:
    """Lay out and write ``fig``, the version caption across its foot (``bottom``: the part
    of the height kept free below the axes, for the caption and a figure legend)."""
    caption, mixed = note
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.text(
        0.01,
        0.01,
        caption,
        fontsize=7,
        color="red" if mixed else "dimgrey",
        fontweight="bold" if mixed else "normal",
    )
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def search_latency(data: dict[str, Any], out: Path, note: Note) -> None:
    """Colour: the store; line: the percentile (solid p50, dashed p95)."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
    for ax, query in zip(axes, ("first-time", "repeated"), strict=True):
        for backend, marker, colour in (("embedded", "o", "C0"), ("postgresql", "s", "C1")):
            points = sorted(
                (p for p in data["points"] if p["backend"] == backend and p["query"] == query),
                key=lambda p: p["items"],
            )
            sizes = [p["items"] for p in points]
            for pct, style in (("p50", "-"), ("p95", "--")):
                ax.plot(
                    sizes,
                    [p[pct] for p in points],
                    style,
                    marker=marker,
                    color=colour,
                    label=f"{backend} {pct}",
                )
        for pct, style in (("p50", ":"), ("p95", "-.")):
            ax.axhline(
                data["target_ms"][pct],
                color="grey",
                linewidth=0.8,
                linestyle=style,
                label=f"target {pct} (embedded)",
            )
        ax.set_xscale("log")
        ax.set_title(f"{query} queries")
        ax.set_xlabel("items in the store")
    axes[0].set_ylim(bottom=0)  # once both panels hold their points (the axes are shared)
    axes[0].set_ylabel("latency (ms)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, 0.04))
    _save(fig, out / "search-latency.svg", note, bottom=0.17)


def enrichment(data: dict[str, Any], out: Path, note: Note) -> None:
    fig, ax = plt.subplots(figsize=(5, 3.5))
    points = data["points"]
    ax.bar([str(p["worker_processes"]) for p in points], [p["articles_per_s"] for p in points])
    ax.axhline(data["target_per_s"], color="red", linestyle=":", label="target")
    ax.set_xlabel("worker processes (2 cores)")
    ax.set_ylabel("articles enriched per second")
    ax.legend()
    _save(fig, out / "enrichment-throughput.svg", note)


def ingestion(data: dict[str, Any], out: Path, note: Note) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    points = data["points"]
    labels = [f"{p['backend']}\n{p['mode']}" for p in points]
    ax.bar(labels, [p["items_per_s"] for p in points])
    ax.axhline(data["target_per_s"], color="red", linestyle=":", label="target")
    ax.set_ylabel("items stored per second")
    ax.tick_params(axis="x", labelsize=7)
    ax.legend()
    _save(fig, out / "ingestion-rate.svg", note)


def webhooks(data: dict[str, Any], out: Path, note: Note) -> None:
    fig, (rate, latency) = plt.subplots(1, 2, figsize=(9, 3.5))
    points = data["points"]
    labels = [f"{p['backend']}\n{p['run']}" for p in points]
    rate.bar(labels, [p["per_s"] for p in points])
    rate.axhline(data["target_per_s"], color="red", linestyle=":", label="target")
    rate.set_ylabel("deliveries per second")
    rate.legend()
    x = range(len(points))
    latency.bar([i - 0.2 for i in x], [p["p50_ms"] for p in points], width=0.4, label="p50")
    latency.bar([i + 0.2 for i in x], [p["p99_ms"] for p in points], width=0.4, label="p99")
    latency.axhline(data["target_p99_ms"], color="red", linestyle=":", label="target p99")
    latency.set_xticks(list(x), labels)
    latency.set_ylabel("event to first attempt (ms)")
    latency.legend(fontsize=7)
    for ax in (rate, latency):
        ax.tick_params(axis="x", labelsize=7)
    _save(fig, out / "webhooks.svg", note)


def clusters(data: dict[str, Any], out: Path, note: Note) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    points = data["points"]
    x = range(len(points))
    ax.bar(
        [i - 0.2 for i in x],
        [p["online"] for p in points],
        width=0.4,
        yerr=[p["online_sd"] for p in points],
        label="online (Herald)",
    )
    ax.bar(
        [i + 0.2 for i in x], [p["offline"] for p in points], width=0.4, label="offline reference"
    )
    ax.axhline(data["target_f1"], color="red", linestyle=":", label="target (ECB+)")
    ax.set_xticks(list(x), [p["stream"] for p in points])
    ax.set_ylabel("B-cubed F1")
    ax.set_ylim(0, 1.15)  # room for the legend above the bars
    ax.legend(fontsize=7, loc="upper right", ncol=3)
    _save(fig, out / "clusters-quality.svg", note)


def draw(results: Path, out: Path) -> list[Path]:
    """Write every plot into ``out``; return the files written."""
    plt.rcParams["svg.hashsalt"] = "herald-benchmarks"
    plt.rcParams["svg.fonttype"] = "none"  # text stays text: small, searchable files
    data = json.loads(results.read_text())
    out.mkdir(parents=True, exist_ok=True)
    plots = {
        "search_latency": search_latency,
        "enrichment": enrichment,
        "ingestion": ingestion,
        "webhooks": webhooks,
        "clusters": clusters,
    }
    notes = version_notes(data, list(plots))  # refuse before drawing
    for name, plot in plots.items():
        plot(data[name], out, notes[name])
    return sorted(out.glob("*.svg"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    for path in draw(args.results, args.out):
        print(path)


if __name__ == "__main__":
    main()
