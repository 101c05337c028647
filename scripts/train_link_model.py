"""Train the linker's link model (``herald.entities.link_model``) and write its weights.

    .venv/bin/python scripts/train_link_model.py --conll DATA/conll2003
        [--out src/herald/data/linker/links.json] [--cache DIR]

Each CoNLL-2003 document goes through Herald's recogniser and the linker's stages up to
disambiguation (bundled seed knowledge base); every group whose first-ranked known entity is
good enough to link by the hand-set confidence (``EntityLinker.ranked_first``) is a row: what
ranked it (kind fit, prior, context, geography, name match, its lead over the second). The row is
right when the group's mentions overlap gold names of that entity's kind (person,
organisation, place); wrong when they overlap gold names of another kind, or none. CoNLL-2003
carries no entity identifiers, so the model learns whether the item names a thing of the first
candidate's kind, not which of two namesakes it names: the ranking stays the hand-set score's.
A logistic regression (scikit-learn, inputs standardised) is fitted on the train split
(eng.train) for each regularisation strength of ``--c``; the one with the lowest log loss on the
dev split (eng.testa) is kept. The test split is never read. The threshold at which a known
entity is linked (``LinkingConfig.link_threshold``) is chosen on dev with the entity benchmarks;
this prints, for a few thresholds, how many dev rows would be linked and how many are right.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from herald.entities.cues import KIND_GROUP  # noqa: E402
from herald.entities.kb import KnowledgeBase  # noqa: E402
from herald.entities.link_model import CLASSES, FEATURES  # noqa: E402
from herald.entities.linking import EntityLinker, LinkingConfig  # noqa: E402
from scripts.logistic_file import fit_binary, write_binary  # noqa: E402
from scripts.train_kind_model import gold_class, mentions_of  # noqa: E402

OUT = ROOT / "src/herald/data/linker/links.json"
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)


def rows(data: Path, split: str, cache: Path | None) -> tuple[np.ndarray, np.ndarray]:
    documents, found = mentions_of(data, split, cache, "herald")
    # The link model's own decision left out: the rows are what it decides on.
    linker = EntityLinker(KnowledgeBase.from_seed(), LinkingConfig(link_threshold=0.0))
    x, y = [], []
    for document, mentions in zip(documents, found, strict=True):
        for group, first in linker.ranked_first(document.title, document.body, mentions):
            x.append(list(first.signals))
            y.append(int(KIND_GROUP[first.record.entity_kind] == gold_class(document, group)))
    return np.asarray(x, dtype=np.float64), np.asarray(y)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--conll", type=Path, required=True, help="the conll2003 folder")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=None, help="recogniser output of CoNLL")
    parser.add_argument("--c", type=float, nargs="+", default=[0.003, 0.01, 0.03, 0.1, 1.0])
    args = parser.parse_args()

    x_train, y_train = rows(args.conll, "train", args.cache)
    x_dev, y_dev = rows(args.conll, "dev", args.cache)
    print(f"rows: train {len(y_train)} ({int(y_train.sum())} right), dev {len(y_dev)}")
    fitted = fit_binary(x_train, y_train, x_dev, y_dev, args.c)
    p = fitted.probability(x_dev)
    shown = ", ".join(
        f">={t:g}: {int((p >= t).sum())} ({int(y_dev[p >= t].sum())} right)" for t in THRESHOLDS
    )
    print(f"dev: {len(y_dev)} rows, {int(y_dev.sum())} right; linked {shown}")
    write_binary(
        args.out,
        fitted,
        classes=CLASSES,
        features=FEATURES,
        about={
            "what": "the linker's link model: logistic regression over the first-ranked candidate",
            "trained_on": "CoNLL-2003 English train split; C chosen on its dev split",
            "C": fitted.c,
            "dev": {
                "log_loss": round(fitted.loss, 4),
                "roc_auc": round(fitted.auc, 4),
                "rows": len(y_dev),
            },
        },
    )
    print(f"kept C={fitted.c:g} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
