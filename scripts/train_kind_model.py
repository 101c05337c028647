"""Train the linker's kind model (``herald.entities.kinds``) on CoNLL-2003 and write its weights.

    .venv/bin/python scripts/train_kind_model.py --data DATA/conll2003
        [--out src/herald/data/linker/kinds.json] [--cache DIR]

Each training document goes through the recognisers of ``--recognizers`` (Herald's by default)
and the linker's grouping; each group of mentions is labelled by the gold names its mentions
overlap (PER -> person, ORG -> organisation, LOC -> place, MISC -> other; none -> no entity). A
multinomial logistic regression (scikit-learn, inputs standardised) is fitted on the train split
for each regularisation strength of ``--c``; the one with the lowest log loss on the dev split is
kept. The test split is never read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.conll_data import Document, read_split  # noqa: E402
from bench.recognizers import recognizer_for  # noqa: E402

from herald.enrich.ner import MENTION_FORMAT, Mention  # noqa: E402
from herald.entities.kb import KnowledgeBase  # noqa: E402
from herald.entities.kinds import CLASSES, CONFIDENCE, FEATURES, NONE, OTHER, features  # noqa: E402
from herald.entities.linking import EntityLinker  # noqa: E402
from scripts.logistic_file import standardisation, standardised, with_inputs_unknown  # noqa: E402

GOLD = {"PER": "person", "ORG": "org", "LOC": "place", "MISC": OTHER}
OUT = ROOT / "src/herald/data/linker/kinds.json"


def mentions_of(
    data: Path, split: str, cache: Path | None, which: str
) -> tuple[list[Document], list[list[Mention]]]:
    """The split's documents and the mentions of each by the recogniser ``which`` (kept in
    ``cache`` as JSON, by the recogniser's model name, when given)."""
    documents = read_split(data, split)
    recognizer = recognizer_for(which)
    name = recognizer.model_name.replace("/", "_").replace("#", "_")
    path = cache / f"conll-{split}-{name}-v{MENTION_FORMAT}.json" if cache else None
    if path is not None and path.exists():
        rows = json.loads(path.read_text("utf-8"))
        return documents, [[Mention(*m) for m in doc] for doc in rows]
    found = recognizer.recognize([d.text for d in documents])
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [[[m.text, m.label, m.start, m.end, m.score] for m in doc] for doc in found]
        path.write_text(json.dumps(rows), encoding="utf-8")
    return documents, found


def gold_class(document: Document, mentions: list[Mention]) -> str:
    votes: Counter[str] = Counter()
    for m in mentions:
        for g in document.mentions:
            if g.start < m.end and m.start < g.end:
                votes[GOLD[g.label]] += 1
    return votes.most_common(1)[0][0] if votes else NONE


def table(documents: list[Document], found: list[list[Mention]]) -> tuple[np.ndarray, np.ndarray]:
    linker = EntityLinker(KnowledgeBase.from_seed())
    rows, labels = [], []
    for document, mentions in zip(documents, found, strict=True):
        for group, evidence in linker.evidence(document.title, document.body, mentions):
            rows.append(features(evidence))
            labels.append(CLASSES.index(gold_class(document, group)))
    return np.asarray(rows, dtype=np.float64), np.asarray(labels)


def main() -> int:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, log_loss

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--c", type=float, nargs="+", default=[0.01, 0.1, 1.0, 10.0])
    parser.add_argument(
        "--recognizers",
        nargs="+",
        default=["herald"],
        help="whose mentions to learn from (each document once per recogniser); Herald's, the"
        " default recogniser, gave the better development figures",
    )
    args = parser.parse_args()

    def split_table(split: str) -> tuple[np.ndarray, np.ndarray]:
        parts = [table(*mentions_of(args.data, split, args.cache, r)) for r in args.recognizers]
        return np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])

    x_train, y_train = split_table("train")
    x_dev, y_dev = split_table("dev")
    # every training group also without the recogniser's confidence (spaCy's gives none)
    x_train, y_train = with_inputs_unknown(x_train, y_train, FEATURES, CONFIDENCE)
    mean, scale = standardisation(x_train)
    print(f"groups: train {len(y_train)}, dev {len(y_dev)}; classes {CLASSES}")
    print(f"train labels {np.bincount(y_train, minlength=len(CLASSES)).tolist()}")
    best = None
    for c in args.c:
        model = LogisticRegression(C=c, max_iter=2000)
        model.fit(standardised(x_train, mean, scale), y_train)
        p = model.predict_proba(standardised(x_dev, mean, scale))
        loss = log_loss(y_dev, p, labels=list(range(len(CLASSES))))
        accuracy = accuracy_score(y_dev, p.argmax(axis=1))
        print(f"C={c:g}: dev log loss {loss:.4f}, accuracy {accuracy:.4f}")
        if best is None or loss < best[0]:
            best = (loss, accuracy, c, model)
    assert best is not None
    loss, accuracy, c, model = best
    classes = [CLASSES[i] for i in model.classes_]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "what": "the linker's kind model: multinomial logistic regression over group evidence",
        "trained_on": "CoNLL-2003 English train split (eng.train), chosen on dev (eng.testa)",
        "recognizers": args.recognizers,
        "C": c,
        "dev": {"log_loss": round(loss, 4), "accuracy": round(accuracy, 4), "groups": len(y_dev)},
        "classes": classes,
        "features": list(FEATURES),
        "weights": [[round(float(w), 6) for w in row] for row in model.coef_],
        "bias": [round(float(b), 6) for b in model.intercept_],
        "mean": [round(float(m), 6) for m in mean],
        "scale": [round(float(s), 6) for s in scale],
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"kept C={c:g} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
