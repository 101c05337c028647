"""Train the linker's admission model (``herald.entities.admission``) and write its weights.

    .venv/bin/python scripts/train_admission_model.py --conll DATA/conll2003 --ecbplus DATA/ecbplus
        [--out src/herald/data/linker/admission.json] [--cache DIR]

The rows are the groups of mentions the linker's rules leave out and the model may admit
(``EntityLinker.left_out``), from two kinds of news, so that what it learns holds beyond one:
Reuters wire stories of 1996 (CoNLL-2003) and web news of 2006-2013 (ECB+). A group is right
when its mentions overlap a gold name of the kind the model would give it: CoNLL-2003's people,
organisations and places; ECB+'s annotated participants and places (a group outside ECB+'s
annotated sentences is not a row: nothing says whether it is right). A logistic regression
(scikit-learn, inputs standardised) is fitted on the train splits (CoNLL-2003 eng.train, ECB+
train topics) for each regularisation strength of ``--c``; the one with the lowest log loss on
the dev splits (eng.testa, ECB+ dev topics) is kept. Test splits are never read. The threshold
at which a group is admitted (``LinkingConfig.admission_threshold``) is chosen on dev with the
entity benchmarks, not here: this prints, for a few thresholds, how many dev groups would be
admitted and how many of them are right.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.clusters_data import load_ecbplus  # noqa: E402
from bench.entities_ecbplus_eval import occurs, read_gold, recognise  # noqa: E402

from herald.entities.admission import CLASSES_ADMITTED, FEATURES, KINDS, admission_row  # noqa: E402
from herald.entities.kb import KnowledgeBase  # noqa: E402
from herald.entities.kinds import CONFIDENCE  # noqa: E402
from herald.entities.kinds import FEATURES as KIND_FEATURES  # noqa: E402
from herald.entities.linking import EntityLinker, document_text  # noqa: E402
from herald.entities.names import alias_key  # noqa: E402
from scripts.logistic_file import fit_binary, write_binary  # noqa: E402
from scripts.train_kind_model import GOLD, mentions_of  # noqa: E402

OUT = ROOT / "src/herald/data/linker/admission.json"
ECB_KINDS = {"person": KINDS[0], "org": KINDS[1], "place": KINDS[2]}
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95)

Rows = tuple[list[list[float]], list[int]]


def conll_rows(data: Path, split: str, cache: Path | None) -> Rows:
    documents, found = mentions_of(data, split, cache, "herald")
    linker = EntityLinker(KnowledgeBase.from_seed())
    x, y = [], []
    for document, mentions in zip(documents, found, strict=True):
        for group, candidate in linker.left_out(document.title, document.body, mentions):
            gold = {
                GOLD[g.label]
                for m in group
                for g in document.mentions
                if g.start < m.end and m.start < g.end
            }
            x.append(candidate.features)
            y.append(int(candidate.kind in gold))
    return x, y


def ecbplus_rows(data: Path, splits: set[str]) -> dict[str, Rows]:
    gold = read_gold(data)
    documents = [d for d in load_ecbplus(data / "docs.jsonl") if d.split in splits]
    found = recognise([document_text(d.title, d.body) for d in documents])
    linker = EntityLinker(KnowledgeBase.from_seed())
    out: dict[str, Rows] = {s: ([], []) for s in splits}
    for document, mentions in zip(documents, found, strict=True):
        g = gold[document.doc_id]
        annotated = g.annotated_text
        for group, candidate in linker.left_out(document.title, document.body, mentions):
            if not any(occurs(m.text, annotated) for m in group):
                continue  # outside the annotated sentences: nothing says whether it is right
            keys = {alias_key(m.text) for m in group}
            hits = [e for e in g.entities if e.names & keys]
            if not hits and keys & g.inner:
                continue  # named only inside another annotated name
            x, y = out[document.split]
            x.append(candidate.features)
            y.append(int(any(ECB_KINDS[e.kind] == candidate.kind for e in hits)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--conll", type=Path, required=True, help="the conll2003 folder")
    parser.add_argument("--ecbplus", type=Path, required=True, help="the ecbplus folder")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=None, help="recogniser output of CoNLL")
    parser.add_argument("--c", type=float, nargs="+", default=[0.003, 0.01, 0.03, 0.1, 1.0])
    args = parser.parse_args()

    ecb = ecbplus_rows(args.ecbplus, {"train", "dev"})
    parts = {
        "train": [conll_rows(args.conll, "train", args.cache), ecb["train"]],
        "dev": [conll_rows(args.conll, "dev", args.cache), ecb["dev"]],
    }
    x_train = np.asarray([r for x, _ in parts["train"] for r in x], dtype=np.float64)
    y_train = np.asarray([v for _, y in parts["train"] for v in y])
    # every training group also as a recogniser that gives no confidence (spaCy's) shows it
    unknown = [KIND_FEATURES.index(name) for name in CONFIDENCE]
    masked = []
    for row in x_train:
        kind_row = [
            math.nan if i in unknown else float(v) for i, v in enumerate(row[: len(KIND_FEATURES)])
        ]
        masked.append(admission_row(kind_row)[1])
    x_train = np.concatenate([x_train, np.asarray(masked, dtype=np.float64)])
    y_train = np.concatenate([y_train, y_train])
    x_dev = np.asarray([r for x, _ in parts["dev"] for r in x], dtype=np.float64)
    y_dev = np.asarray([v for _, y in parts["dev"] for v in y])
    sizes = {s: [len(y) for _, y in p] for s, p in parts.items()}
    print(f"groups (CoNLL-2003, ECB+): {sizes}; right in train {int(y_train.sum())}")
    fitted = fit_binary(x_train, y_train, x_dev, y_dev, args.c)
    start = 0
    for name, (_, y) in zip(("CoNLL-2003 dev", "ECB+ dev"), parts["dev"], strict=True):
        p = fitted.probability(x_dev[start : start + len(y)])
        right = np.asarray(y)
        start += len(y)
        shown = ", ".join(
            f">={t:g}: {int((p >= t).sum())} ({int(right[p >= t].sum())} right)" for t in THRESHOLDS
        )
        print(f"{name}: {len(y)} groups, {int(right.sum())} right; admitted {shown}")
    write_binary(
        args.out,
        fitted,
        classes=CLASSES_ADMITTED,
        features=FEATURES,
        about={
            "what": "the linker's admission model: logistic regression over groups the rules"
            " left out",
            "trained_on": "CoNLL-2003 English train split and ECB+ train topics; C chosen on their"
            " dev splits",
            "C": fitted.c,
            "dev": {
                "log_loss": round(fitted.loss, 4),
                "roc_auc": round(fitted.auc, 4),
                "groups": len(y_dev),
            },
        },
    )
    print(f"kept C={fitted.c:g} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
