"""Draw the benchmark plots of docs/benchmarks.md from bench/results.json.

    python bench/plots.py [--results bench/results.json] [--out docs/images/benchmarks]

The SVGs are deterministic (fixed hash salt, no date), so a re-run with the same figures gives
the same files and a test can check the committed plots are current.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # after use(): the backend must be chosen first

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results.json"
OUT = ROOT / "docs" / "images" / "benchmarks"


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def search_latency(data: dict[str, Any], out: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    for ax, query in zip(axes, ("first-time", "repeated"), strict=True):
        for backend, marker in (("embedded", "o"), ("postgresql", "s")):
            points = sorted(
                (p for p in data["points"] if p["backend"] == backend and p["query"] == query),
                key=lambda p: p["items"],
            )
            sizes = [p["items"] for p in points]
            for pct, style in (("p50", "-"), ("p95", "--")):
                ax.plot(
                    sizes, [p[pct] for p in points], style, marker=marker, label=f"{backend} {pct}"
                )
        for pct, colour in (("p50", "green"), ("p95", "grey")):
            ax.axhline(
                data["target_ms"][pct],
                color=colour,
                linewidth=0.8,
                linestyle=":",
                label=f"target {pct} (embedded)",
            )
        ax.set_xscale("log")
        ax.set_title(f"{query} queries")
        ax.set_xlabel("items in the store")
    axes[0].set_ylabel("latency (ms)")
    axes[1].legend(fontsize=7)
    _save(fig, out / "search-latency.svg")


def enrichment(data: dict[str, Any], out: Path) -> None:
    fig, ax = plt.subplots(figsize=(5, 3.5))
    points = data["points"]
    ax.bar([str(p["worker_processes"]) for p in points], [p["articles_per_s"] for p in points])
    ax.axhline(data["target_per_s"], color="red", linestyle=":", label="target")
    ax.set_xlabel("worker processes (2 cores)")
    ax.set_ylabel("articles enriched per second")
    ax.legend()
    _save(fig, out / "enrichment-throughput.svg")


def ingestion(data: dict[str, Any], out: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    points = data["points"]
    labels = [f"{p['backend']}\n{p['mode']}" for p in points]
    ax.bar(labels, [p["items_per_s"] for p in points])
    ax.axhline(data["target_per_s"], color="red", linestyle=":", label="target")
    ax.set_ylabel("items stored per second")
    ax.tick_params(axis="x", labelsize=7)
    ax.legend()
    _save(fig, out / "ingestion-rate.svg")


def webhooks(data: dict[str, Any], out: Path) -> None:
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
    _save(fig, out / "webhooks.svg")


def clusters(data: dict[str, Any], out: Path) -> None:
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
    _save(fig, out / "clusters-quality.svg")


def draw(results: Path, out: Path) -> list[Path]:
    """Write every plot into ``out``; return the files written."""
    plt.rcParams["svg.hashsalt"] = "herald-benchmarks"
    plt.rcParams["svg.fonttype"] = "none"  # text stays text: small, searchable files
    data = json.loads(results.read_text())
    out.mkdir(parents=True, exist_ok=True)
    search_latency(data["search_latency"], out)
    enrichment(data["enrichment"], out)
    ingestion(data["ingestion"], out)
    webhooks(data["webhooks"], out)
    clusters(data["clusters"], out)
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
