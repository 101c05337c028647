"""Fit the map from the linker's score to a calibrated confidence, and show how well it holds.

    .venv/bin/python scripts/fit_link_calibration.py --data DATA/conll2003
        [--out src/herald/data/linker/calibration.json] [--cache DIR] [--report-only]

Every CoNLL-2003 training document goes through Herald's recogniser and linker (bundled seed
knowledge base; new names stay candidates, as Herald stages them: one source confirms none).
Each link to a person, an organisation or a place is right when one of its names (display name,
aliases) is a gold name of its kind in the document, or, for a person named by one word, the
last word of a gold person's name. An isotonic regression (scikit-learn) of right on the
linker's score is fitted for links to knowledge-base entities and for new entities, for each
way of deciding a name's kind. The development split shows the reliability of the raw score
and of the calibrated confidence: per band of confidence, the share of links that were right,
with its 95% bootstrap interval over documents, and the expected calibration error. The test
split is never read.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import bootstrap  # noqa: E402
from bench.conll_data import Document, read_split  # noqa: E402
from bench.entities_ablation import cached_mentions  # noqa: E402
from bench.entities_conll_eval import HERALD_KINDS  # noqa: E402
from bench.entities_conll_score import gold_entities, normalise  # noqa: E402

from herald.entities.calibration import DISCOVERED, KNOWN, Calibration  # noqa: E402
from herald.entities.kb import KnowledgeBase  # noqa: E402
from herald.entities.linking import EntityLinker, LinkingConfig  # noqa: E402

OUT = ROOT / "src/herald/data/linker/calibration.json"
BANDS = (0.0, 0.6, 0.7, 0.8, 0.9, 1.0001)
MODES = ("rules", "learned")


@dataclass(frozen=True)
class Link:
    document: int
    score: float
    origin: str
    right: bool


def links(documents: list[Document], mentions: list[list[object]], kinds: str) -> list[Link]:
    kb = KnowledgeBase.from_seed()
    # The raw scores: no calibration applied while fitting one.
    linker = EntityLinker(kb, LinkingConfig(learned_kinds=kinds == "learned", calibrated=False))
    out = []
    for i, (document, found) in enumerate(zip(documents, mentions, strict=True)):
        # New names stay candidates (one source: none is confirmed), as Herald stages them.
        result = linker.link(document.title, document.body, found)  # type: ignore[arg-type]
        drafts = {d.id: d.to_record() for d in result.new_entities}
        gold = gold_entities((m.text, m.label) for m in document.mentions)
        names = {
            k: set().union(*(g.names for g in gold if g.kind == k)) for k in ("PER", "ORG", "LOC")
        }
        last = {n.rsplit(" ", 1)[-1] for n in names["PER"]}
        for entity in result.entities:
            kind = HERALD_KINDS.get(entity.entity_kind)
            record = kb.get(entity.entity_id) or drafts.get(entity.entity_id)
            if kind is None or record is None:
                continue
            own = {normalise(n) for n in (record.display_name, *record.aliases)} - {""}
            right = bool(own & names[kind]) or (
                kind == "PER" and len(own) == 1 and " " not in next(iter(own)) and own <= last
            )
            origin = DISCOVERED if record.origin == "discovered" else KNOWN
            out.append(Link(i, entity.confidence, origin, right))
    return out


def fit(train: list[Link]) -> dict[str, tuple[tuple[float, ...], tuple[float, ...]]]:
    from sklearn.isotonic import IsotonicRegression

    out = {}
    for origin in (KNOWN, DISCOVERED):
        rows = [link for link in train if link.origin == origin]
        x = np.array([link.score for link in rows])
        y = np.array([float(link.right) for link in rows])
        model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
        xs = [round(float(v), 4) for v in model.X_thresholds_]
        ys = [round(float(v), 4) for v in model.y_thresholds_]
        out[origin] = (tuple(xs), tuple(ys))
    return out


def reliability(dev: list[Link], confidence: list[float], documents: int, title: str) -> None:
    """Per band of confidence, the share of links that were right (precision over the band's
    links, resampled by document) and the expected calibration error."""
    conf = np.array(confidence)
    right = np.array([float(link.right) for link in dev])
    doc = np.array([link.document for link in dev])
    print(f"  {title}")
    print(f"    {'confidence':<12} {'links':>6} {'mean conf':>10} {'right [95% CI]':>24}")
    ece = 0.0
    for low, high in itertools.pairwise(BANDS):
        inside = (conf >= low) & (conf < high)
        if not inside.any():
            continue
        counts = np.zeros((documents, len(bootstrap.COUNTS)))
        counts[:, 0] = np.bincount(doc[inside], weights=right[inside], minlength=documents)
        counts[:, 1] = np.bincount(doc[inside], minlength=documents)
        share = bootstrap.interval(counts, bootstrap.precision)
        mean = conf[inside].mean()
        ece += inside.mean() * abs(share.point - mean)
        band = f"{low:.1f}-{min(high, 1.0):.1f}"
        print(f"    {band:<12} {int(inside.sum()):>6} {mean:>10.3f} {share!s:>24}")
    print(f"    expected calibration error {ece:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--report-only", action="store_true", help="show the shipped map on dev")
    args = parser.parse_args()
    splits = ("dev",) if args.report_only else ("train", "dev")
    data = {}
    for split in splits:
        documents = read_split(args.data, split)
        data[split] = (documents, cached_mentions(documents, split, args.cache))
    maps: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {}
    if args.report_only:
        maps = Calibration.from_json(json.loads(args.out.read_text("utf-8"))).maps
    for kinds in MODES:
        dev = links(*data["dev"], kinds)  # type: ignore[arg-type]
        if not args.report_only:
            for origin, points in fit(links(*data["train"], kinds)).items():  # type: ignore[arg-type]
                maps[f"{kinds}:{origin}"] = points
        calibration = Calibration(maps)
        print(f"\nkinds by {kinds}: {len(dev)} dev links")
        n = len(data["dev"][0])
        reliability(dev, [link.score for link in dev], n, "the linker's score")
        calibrated = [calibration.confidence(x.score, kinds=kinds, origin=x.origin) for x in dev]
        reliability(dev, calibrated, n, "calibrated confidence")
    if not args.report_only:
        args.out.write_text(json.dumps(Calibration(maps).to_json(), indent=1) + "\n", "utf-8")
        print(f"\n-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
