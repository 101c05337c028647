"""Story-clustering quality: ECB+ and WCEP replayed in arrival order through the online clusterer.

Prints B-cubed and pairwise precision/recall/F1 of the online clusterer and, beside it, an offline
reference on the same features: average-linkage agglomerative clustering of the pairwise link
probabilities, its threshold tuned on the gold labels of the very set it is scored on (the best
those features can do offline), plus single-feature references (TF-IDF, MiniLM). For the ECB+
test topics it also prints the offline reference with its cut tuned on train+dev instead (what
the online clusterer is held to: no test labels).

The online clusterer's weights were fitted on ECB+ train topics and its thresholds chosen on ECB+
train+dev topics (``--fit`` redoes that and prints the model); the test topics are only scored.
Arrival order and times: see ``clusters_data``. ECB+ is reported over several arrival orders
(seeded shuffles): the mean and the spread.

    .venv/bin/python bench/clusters_eval.py --data DATA            # evaluate (ECB+ test, all, WCEP)
    .venv/bin/python bench/clusters_eval.py --data DATA --pipeline # also through `herald ingest`
    .venv/bin/python bench/clusters_eval.py --data DATA --fit      # refit weights and thresholds
    .venv/bin/python bench/clusters_eval.py --data DATA --record   # also write the plot's figures

``--record`` writes each stream's online B-cubed F1 (mean and spread over the arrival orders) and
offline reference into bench/results.json with the code version measured (bench/results.py), for
the plot of docs/benchmarks.md; it needs the plot's settings (both datasets, every arrival
order, the offline references, the shipped model).

DATA: the folder holding the ``ecbplus`` and ``wcep-wikitimes-2015-09`` datasets
(docs/benchmarks.md, "Datasets").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clusters_data import (
    ECBPLUS,
    WCEP,
    BenchDoc,
    Enriched,
    arrival_order,
    enrich,
    load_ecbplus,
    load_wcep,
    story_stream,
)
from clusters_metrics import Scores, bcubed, pairwise
from herald.clusters.assignment import ClusteringConfig
from herald.clusters.evidence import (
    BAG_NAMES,
    DEFAULT_LINK_MODEL,
    EVIDENCE_NAMES,
    ItemVectors,
    LinkModel,
    new_statistics,
    observe,
)
from herald.clusters.online import OnlineClusterer
from herald.clusters.vectors import cosine
from public_data import add_data_argument

SEEDS = (0, 1, 2, 3, 4)
HARD_NEGATIVES = 3

Labels = dict[int, str]


# -- running ---------------------------------------------------------------------------------


def run_online(
    docs: Sequence[BenchDoc],
    enriched: Sequence[Enriched],
    indexes: Sequence[int],
    seed: int | None,
    config: ClusteringConfig,
) -> tuple[Labels, list[tuple[int, float, bool]]]:
    """Predicted cluster per document, and (doc, probability, joined-correctly) per scored join."""
    subset = [docs[i] for i in indexes]
    order = arrival_order(subset, seed)
    stream = story_stream(subset, [enriched[i] for i in indexes], order)
    clusterer = OnlineClusterer(config)
    labels: Labels = {}
    links: list[tuple[int, float, bool]] = []
    members: dict[str, list[int]] = {}
    doc_of: dict[str, int] = {}
    for local, item, now in stream:
        assignment = clusterer.assign(item, now=now)
        doc = indexes[local]
        doc_of[item.content_id] = doc
        cid = assignment.cluster.cluster_id
        if assignment.split_from is not None:  # members moved out of a cluster into this one
            left = assignment.split_from.cluster_id
            for content_id in assignment.moved:
                moved = doc_of[content_id]
                labels[moved] = cid
                members[left].remove(moved)
                members.setdefault(cid, []).append(moved)
        if not assignment.created and not assignment.syndicated:
            gold = docs[doc].gold
            majority = _majority([docs[m].gold for m in members[cid]])
            links.append((doc, assignment.similarity, gold is not None and gold == majority))
        labels[doc] = cid
        members.setdefault(cid, []).append(doc)
    return labels, links


def _majority(golds: Sequence[str | None]) -> str | None:
    counts: dict[str | None, int] = {}
    for gold in golds:
        counts[gold] = counts.get(gold, 0) + 1
    return max(sorted(counts, key=str), key=lambda g: counts[g])


def score(docs: Sequence[BenchDoc], labels: Labels) -> tuple[Scores, Scores, int]:
    scored = [i for i in sorted(labels) if docs[i].gold is not None]
    gold = [docs[i].gold for i in scored]
    predicted = [labels[i] for i in scored]
    return bcubed(gold, predicted), pairwise(gold, predicted), len(set(predicted))


# -- offline reference -------------------------------------------------------------------------


def similarity_matrices(
    docs: Sequence[BenchDoc], enriched: Sequence[Enriched], indexes: Sequence[int]
) -> dict[str, np.ndarray]:
    """Document-to-document similarities on the clusterer's features, with corpus-wide IDF."""
    stream = story_stream(
        [docs[i] for i in indexes], [enriched[i] for i in indexes], range(len(indexes))
    )
    items = [item for _, item, _ in stream]
    statistics = new_statistics()
    for item in items:
        observe(statistics, item)
    vectors = [ItemVectors.of(item, statistics) for item in items]
    n = len(items)
    out = {}
    for name in BAG_NAMES:
        matrix = np.eye(n)
        bags = [v.bags[name] for v in vectors]
        for a in range(n):
            for b in range(a + 1, n):
                matrix[a, b] = matrix[b, a] = cosine(bags[a], bags[b])
        out[name] = matrix
    emb = np.stack([item.embedding for item in items]).astype(np.float64)
    out["embedding"] = out["nearest"] = np.clip(emb @ emb.T, 0, 1)
    return out


def link_probability_matrix(sims: dict[str, np.ndarray], model: LinkModel) -> np.ndarray:
    """The model's link probability between two documents (each a one-member cluster)."""
    z = np.full_like(sims["embedding"], model.bias)
    for weight, name in zip(model.weights, EVIDENCE_NAMES, strict=True):
        z += weight * sims[name]
    return 1.0 / (1.0 + np.exp(-z))


def best_agglomerative(
    similarity: np.ndarray, gold: Sequence[str | None], grid: np.ndarray
) -> tuple[float, Scores, Scores, int]:
    """Average linkage cut at each distance in ``grid``; the cut with the best B-cubed F1."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    distance = np.clip(1.0 - similarity, 0.0, None)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    keep = [i for i, g in enumerate(gold) if g is not None]
    best: tuple[float, Scores, Scores, int] | None = None
    for cut in grid:
        labels = fcluster(tree, t=cut, criterion="distance")
        g = [gold[i] for i in keep]
        p = [int(labels[i]) for i in keep]
        b3 = bcubed(g, p)
        if best is None or b3.f1 > best[1].f1:
            best = (float(cut), b3, pairwise(g, p), len(set(p)))
    assert best is not None
    return best


# -- fitting ---------------------------------------------------------------------------------


def teacher_forced_rows(
    docs: Sequence[BenchDoc], enriched: Sequence[Enriched], indexes: Sequence[int], seed: int
) -> tuple[list[tuple[float, ...]], list[int], float]:
    """Link evidence of each item against its candidate clusters, clusters built from gold.

    Returns the rows, their labels (1 = the item's gold story) and the candidate recall (share
    of items whose gold story was active and among the retrieved candidates).
    """
    subset = [docs[i] for i in indexes]
    stream = story_stream(subset, [enriched[i] for i in indexes], arrival_order(subset, seed))
    clusterer = OnlineClusterer(ClusteringConfig())
    story_of_cluster: dict[str, str | None] = {}
    cluster_of_story: dict[str | None, str] = {}
    rows: list[tuple[float, ...]] = []
    labels: list[int] = []
    found = expected = 0
    for local, item, now in stream:
        gold = subset[local].gold
        if clusterer.get(cluster_of_story.get(gold, "")) is not None and item.article_id in (
            clusterer.get(cluster_of_story[gold]).article_ids  # type: ignore[union-attr]
        ):
            clusterer.assign(item, now=now)  # a syndicated copy: no decision to learn
            continue
        prepared = clusterer.prepare(item)
        target = None
        if gold in cluster_of_story:
            expected += 1
        negatives = []
        for candidate in prepared.scored:
            if story_of_cluster[candidate.profile.cluster_id] == gold:
                target = candidate
                found += 1
                rows.append(candidate.evidence.as_tuple())
                labels.append(1)
            else:
                negatives.append(candidate)
        # The decision is between the best candidates: learn from the hardest negatives only.
        negatives.sort(key=lambda c: -c.probability)
        for candidate in negatives[:HARD_NEGATIVES]:
            rows.append(candidate.evidence.as_tuple())
            labels.append(0)
        assignment = clusterer.place(prepared, target, now=now)
        if target is None:
            story_of_cluster[assignment.cluster.cluster_id] = gold
            cluster_of_story[gold] = assignment.cluster.cluster_id
    return rows, labels, found / max(expected, 1)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-4) -> tuple[tuple[float, ...], float]:
    """Logistic regression with non-negative weights: more similarity never argues against a
    link, which keeps the model readable (and correlated similarities from cancelling out)."""
    from scipy.optimize import minimize

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:-1], params[-1]
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        eps = 1e-12
        value = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + l2 * w @ w
        grad_z = (p - y) / len(y)
        grad = np.append(x.T @ grad_z + 2 * l2 * w, grad_z.sum())
        return float(value), grad

    start = np.zeros(x.shape[1] + 1)
    bounds = [(0.0, None)] * x.shape[1] + [(None, None)]
    result = minimize(loss, start, jac=True, bounds=bounds, method="L-BFGS-B")
    weights = tuple(round(float(w), 3) for w in result.x[:-1])
    return weights, round(float(result.x[-1]), 3)


def fit(
    docs: Sequence[BenchDoc], enriched: Sequence[Enriched], *, refit_weights: bool = True
) -> tuple[LinkModel, ClusteringConfig]:
    """Weights on train (unless ``refit_weights`` is off: the current ones), then the join
    threshold (with the default rule for moving members), then that rule's two thresholds, then
    the confidence bands, all on train+dev."""
    train = [i for i, d in enumerate(docs) if d.split == "train"]
    tune = [i for i, d in enumerate(docs) if d.split in ("train", "dev")]
    model = DEFAULT_LINK_MODEL
    if refit_weights:
        rows: list[tuple[float, ...]] = []
        labels: list[int] = []
        for seed in SEEDS:
            r, y, recall = teacher_forced_rows(docs, enriched, train, seed)
            rows += r
            labels += y
            print(f"  seed {seed}: {len(r)} candidate pairs, candidate recall {recall:.3f}")
        weights, bias = fit_logistic(np.asarray(rows), np.asarray(labels))
        print(f"  logistic weights {weights} bias {bias} {EVIDENCE_NAMES}")
        model = replace(DEFAULT_LINK_MODEL, weights=weights, bias=bias)
    else:
        print(f"  weights kept: {model.weights} bias {model.bias} {EVIDENCE_NAMES}")

    best: tuple[float, float] | None = None
    for threshold in np.arange(0.05, 0.61, 0.05):
        t = round(float(threshold), 2)
        candidate = replace(model, join_threshold=t, medium=t, high=1.0)
        f1s = [
            score(docs, run_online(docs, enriched, tune, seed, ClusteringConfig(candidate))[0])[
                0
            ].f1
            for seed in SEEDS[:3]
        ]
        mean = statistics.mean(f1s)
        print(f"  join threshold {threshold:.2f}: train+dev B-cubed F1 {mean:.4f}")
        if best is None or mean > best[1]:
            best = (round(float(threshold), 2), mean)
    assert best is not None
    model = replace(model, join_threshold=best[0], medium=best[0], high=1.0)

    split = fit_split(docs, enriched, tune, model)
    links: list[tuple[int, float, bool]] = []
    for seed in SEEDS:
        links += run_online(docs, enriched, tune, seed, replace(split, model=model))[1]
    high = _band(links, 0.97, model.join_threshold)
    medium = _band(links, 0.90, model.join_threshold)
    model = replace(model, high=max(high, medium), medium=medium)
    print(f"\nfitted: {model}\nsplit_link {split.split_link} split_cut {split.split_cut}")
    return model, replace(split, model=model)


def fit_split(
    docs: Sequence[BenchDoc], enriched: Sequence[Enriched], tune: Sequence[int], model: LinkModel
) -> ClusteringConfig:
    """The two thresholds for moving mistaken members out, on train+dev (five orders each)."""
    best: tuple[ClusteringConfig, float] | None = None
    for link, cut in [(0.0, 0.0)] + [
        (link, cut) for link in (0.4, 0.5, 0.6) for cut in (0.15, 0.18, 0.2, 0.22, 0.25)
    ]:
        config = ClusteringConfig(model, split_link=link, split_cut=cut)
        f1s = [
            score(docs, run_online(docs, enriched, tune, seed, config)[0])[0].f1 for seed in SEEDS
        ]
        mean = statistics.mean(f1s)
        label = "never move members" if cut == 0.0 else f"split_link {link} split_cut {cut}"
        print(f"  {label}: train+dev B-cubed F1 {mean:.4f}")
        if best is None or mean > best[1]:
            best = (config, mean)
    assert best is not None
    return best[0]


def _band(links: Sequence[tuple[int, float, bool]], precision: float, floor: float) -> float:
    """Lowest probability above which joins were right at least ``precision`` of the time."""
    ranked = sorted(links, key=lambda link: -link[1])
    right = 0
    cut = 1.0
    for count, (_, probability, correct) in enumerate(ranked, start=1):
        right += correct
        if right / count >= precision:
            cut = probability
    return round(max(cut, floor), 3)


# -- reporting -------------------------------------------------------------------------------


def report_online(
    name: str,
    docs: Sequence[BenchDoc],
    enriched: Sequence[Enriched],
    indexes: Sequence[int],
    seeds: Sequence[int | None],
    config: ClusteringConfig,
) -> tuple[float, float]:
    """Score the online clusterer over ``seeds`` arrival orders; return the mean B-cubed F1 and
    its spread (population standard deviation)."""
    b3s, pws, counts = [], [], []
    started = time.perf_counter()
    for seed in seeds:
        labels, _ = run_online(docs, enriched, indexes, seed, config)
        b3, pw, k = score(docs, labels)
        b3s.append(b3)
        pws.append(pw)
        counts.append(k)
    per_item = (time.perf_counter() - started) / (len(indexes) * len(seeds)) * 1000
    _print_row(f"{name} online", b3s, pws, counts)
    print(f"    ({len(seeds)} arrival order(s), {per_item:.2f} ms per item incl. feature prep)")
    f1s = [s.f1 for s in b3s]
    return statistics.mean(f1s), statistics.pstdev(f1s)


def _print_row(
    label: str, b3s: Sequence[Scores], pws: Sequence[Scores], counts: Sequence[int]
) -> None:
    def mean(values: list[float]) -> str:
        if len(values) == 1:
            return f"{values[0]:.3f}"
        return f"{statistics.mean(values):.3f}±{statistics.pstdev(values):.3f}"

    print(
        f"  {label:34s} B3 P {mean([s.precision for s in b3s])} R {mean([s.recall for s in b3s])}"
        f" F1 {mean([s.f1 for s in b3s])} | pairwise P {mean([s.precision for s in pws])}"
        f" R {mean([s.recall for s in pws])} F1 {mean([s.f1 for s in pws])}"
        f" | clusters {statistics.mean(counts):.0f}"
    )


def report_offline(
    name: str,
    docs: Sequence[BenchDoc],
    enriched: Sequence[Enriched],
    indexes: Sequence[int],
    model: LinkModel,
) -> float:
    sims = similarity_matrices(docs, enriched, indexes)
    gold = [docs[i].gold for i in indexes]
    grid = np.arange(0.02, 1.0, 0.01)
    results = {}
    combined = link_probability_matrix(sims, model)
    for label, matrix in (
        ("offline reference (same features)", combined),
        ("offline TF-IDF only", sims["terms"]),
        ("offline MiniLM only", sims["embedding"]),
    ):
        cut, b3, pw, k = best_agglomerative(matrix, gold, grid)
        results[label] = b3.f1
        _print_row(f"{name} {label}", [b3], [pw], [k])
        print(f"    (average linkage, cut {cut:.2f} tuned on these gold labels)")
    return results["offline reference (same features)"]


def report_transferred_cut(
    docs: Sequence[BenchDoc],
    enriched: Sequence[Enriched],
    tune: Sequence[int],
    test: Sequence[int],
    model: LinkModel,
) -> float:
    """The offline reference without looking at the test labels: its cut tuned on train+dev."""
    grid = np.arange(0.02, 1.0, 0.01)
    tuned = link_probability_matrix(similarity_matrices(docs, enriched, tune), model)
    cut, _, _, _ = best_agglomerative(tuned, [docs[i].gold for i in tune], grid)
    matrix = link_probability_matrix(similarity_matrices(docs, enriched, test), model)
    _, b3, pw, k = best_agglomerative(matrix, [docs[i].gold for i in test], np.array([cut]))
    _print_row("ECB+ test offline, cut from train+dev", [b3], [pw], [k])
    print(f"    (average linkage, cut {cut:.2f} tuned on the train+dev gold labels)")
    return b3.f1


def report_pipeline(
    name: str, docs: Sequence[BenchDoc], enriched: Sequence[Enriched], config: ClusteringConfig
) -> None:
    """The same stream (arrival order of seed 0) through Herald's own ingestion and jobs."""
    from clusters_pipeline import run_herald

    seed = SEEDS[0] if all(d.published_at is None for d in docs) else None
    order = arrival_order(docs, seed)
    print(f"\n{name} through `herald ingest` (arrival order {seed}):")
    labels, stats = run_herald(name, docs, order)
    print(
        f"    {int(stats['items'])} items ingested, enriched and clustered in "
        f"{stats['seconds']:.0f} s; {int(stats['unclustered'])} left unclustered"
    )
    indexes = list(range(len(docs)))
    harness, _ = run_online(docs, enriched, indexes, seed, config)
    subsets = [("all", indexes)]
    if name == "ecbplus":
        subsets.append(("test topics", [i for i in indexes if docs[i].split == "test"]))
    for label, subset in subsets:
        chosen = set(subset)
        b3, pw, k = score(docs, {i: c for i, c in labels.items() if i in chosen})
        _print_row(f"{name} {label} via herald ingest", [b3], [pw], [k])
        b3, pw, k = score(docs, {i: c for i, c in harness.items() if i in chosen})
        _print_row(f"{name} {label} harness, same order", [b3], [pw], [k])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fit", action="store_true", help="refit on ECB+ train/dev and print")
    parser.add_argument(
        "--keep-weights",
        action="store_true",
        help="with --fit: keep the link model's weights, choose only the thresholds",
    )
    add_data_argument(parser, "ecbplus", "wcep-wikitimes-2015-09")
    parser.add_argument("--dataset", choices=["ecbplus", "wcep", "both"], default="both")
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help="ECB+ arrival orders")
    parser.add_argument("--no-offline", action="store_true", help="skip the offline references")
    parser.add_argument(
        "--pipeline",
        action="store_true",
        help="also replay through `herald ingest` (ingestion, enrichment, clustering jobs)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="write the online and offline B-cubed F1 into bench/results.json",
    )
    args = parser.parse_args(argv)
    if args.record and (
        args.fit or args.no_offline or args.dataset != "both" or args.seeds != len(SEEDS)
    ):
        parser.error(
            "--record needs the plot's settings: both datasets, every arrival order, the "
            "offline references and the shipped model (no --fit)"
        )

    print("Story clustering evaluation (machine shared by up to 8 engineers: timings are noisy)")
    ecb_docs = load_ecbplus(args.data / ECBPLUS)
    ecb = enrich("ecbplus", ecb_docs, args.data / ECBPLUS)
    for split in ("train", "dev", "test"):
        topics = sorted({int(d.topic) for d in ecb_docs if d.split == split})
        count = sum(d.split == split for d in ecb_docs)
        print(f"ECB+ {split} topics ({count} articles): {', '.join(map(str, topics))}")
    print("weights fitted on train, join threshold and bands on train+dev; test only scored")
    model = DEFAULT_LINK_MODEL
    config = ClusteringConfig(model)
    if args.fit:
        print("\nFitting on ECB+ train (weights) and train+dev (thresholds):")
        model, config = fit(ecb_docs, ecb, refit_weights=not args.keep_weights)
    print(f"\nmodel: {model}\nhorizon {config.horizon}, max {config.max_candidates} candidates")
    print(f"moving mistaken members: split_link {config.split_link}, split_cut {config.split_cut}")
    seeds = list(SEEDS[: args.seeds])
    points: list[dict[str, object]] = []  # the plot's, in its order
    if args.dataset in ("ecbplus", "both"):
        for split, keep in (
            ("test", lambda d: d.split == "test"),
            ("train+dev", lambda d: d.split in ("train", "dev")),
            ("all", lambda d: True),
        ):
            indexes = [i for i, d in enumerate(ecb_docs) if keep(d)]
            stories = len({ecb_docs[i].gold for i in indexes})
            print(f"\nECB+ {split}: {len(indexes)} articles, {stories} gold stories")
            online, spread = report_online(f"ECB+ {split}", ecb_docs, ecb, indexes, seeds, config)
            if not args.no_offline:
                offline = report_offline(f"ECB+ {split}", ecb_docs, ecb, indexes, model)
                print(f"    online - offline reference: {online - offline:+.3f}")
                points.append(_point(f"ECB+ {split}", online, spread, offline))
                if split == "test":
                    tune = [i for i, d in enumerate(ecb_docs) if d.split in ("train", "dev")]
                    fair = report_transferred_cut(ecb_docs, ecb, tune, indexes, model)
                    print(f"    online - offline with the train+dev cut: {online - fair:+.3f}")
    if args.pipeline and args.dataset in ("ecbplus", "both"):
        report_pipeline("ecbplus", ecb_docs, ecb, config)
    if args.dataset in ("wcep", "both"):
        wcep_docs = load_wcep(args.data / WCEP)
        wcep = enrich("wcep", wcep_docs, args.data / WCEP)
        indexes = list(range(len(wcep_docs)))
        labelled = [i for i in indexes if wcep_docs[i].gold is not None]
        stories = len({wcep_docs[i].gold for i in labelled})
        print(
            f"\nWCEP 2015-09: {len(indexes)} items streamed, "
            f"{len(labelled)} labelled in {stories} stories"
        )
        online, spread = report_online("WCEP", wcep_docs, wcep, indexes, [None], config)
        if not args.no_offline:
            offline = report_offline("WCEP", wcep_docs, wcep, indexes, model)
            print(f"    online - offline reference: {online - offline:+.3f}")
            points.append(_point("WCEP 2015-09", online, spread, offline))
        if args.pipeline:
            report_pipeline("wcep", wcep_docs, wcep, config)
    if args.record:
        from results import record

        for point in points:
            stream = point.pop("stream")
            record("clusters", {"stream": stream}, point)


def _point(stream: str, online: float, spread: float, offline: float) -> dict[str, object]:
    """A stream's point of the plot (bench/results.json), rounded as the report prints."""
    return {
        "stream": stream,
        "online": round(online, 3),
        "online_sd": round(spread, 3),
        "offline": round(offline, 3),
    }


if __name__ == "__main__":
    main()
