"""Two versions of Herald's recogniser, paired over articles: a candidate against the shipped one.

    .venv/bin/python bench/recognizer_compare.py --data DATA --model CANDIDATE_DIR
        [--against src/herald/data/models/recognizer]
    .venv/bin/python bench/recognizer_compare.py --data DATA --save FILE.npz
    .venv/bin/python bench/recognizer_compare.py --data DATA --saved CANDIDATE.npz AGAINST.npz

Each folder holds a recogniser as Herald ships it (``recognizer.safetensors``,
``recognizer.json``, ``activation_ranges.json``; the int8 graph is built from them). Both read
the CoNLL-2003 development split (``DATA/conll2003``) and the ECB+ train and development topics
(``DATA/ecbplus``), as ``bench/entities_conll_eval.py`` and ``bench/entities_ecbplus_eval.py``
score them with Herald's default linker: CoNLL mention level, document level alone and with the
linker, per class of article (general news, sports, all), and ECB+ document level with the
linker. Every figure has its 95% bootstrap interval over articles, and each difference
(candidate - against) its paired interval (``bench/bootstrap.py``): a difference inside it is no
change. Test splits are never read.

A recogniser and the linker's models trained on its output go together: to compare two such
whole configurations, run ``--save`` in each checkout (its bundled recogniser with its own
linker) and ``--saved`` on the two files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.clusters_data import load_ecbplus
from bench.conll_data import Document, read_split
from bench.entities_conll_eval import alone, difference, document_counts, link, mention_level, table
from bench.entities_conll_score import DOCUMENT_KINDS, MENTION_TYPES
from bench.entities_ecbplus_eval import KINDS, SPLITS, read_gold, score
from bench.linker_options import HERALDS, linking_config
from bench.public_data import add_data_argument
from bench.recognizers import every_name
from herald.config import Settings
from herald.enrich.model_files import bundled_recognizer_folder
from herald.enrich.ner_model import TrainedRecognizer
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, document_text

Counts = NDArray[np.float64]
KINDS_RULE = Settings.model_fields["entity_kinds"].default  # Herald's default: "rules"


def conll_counts(folder: Path, documents: list[Document]) -> dict[str, Counts]:
    """(articles, kinds, 4) counts of the recogniser in ``folder`` on CoNLL-2003 documents."""
    recognizer = TrainedRecognizer(folder)
    texts = [d.text for d in documents]
    mentions = recognizer.recognize(texts)
    return {
        "mention level": mention_level(documents, every_name(recognizer, texts)),
        "document level, recogniser alone": document_counts(
            documents, [alone(m) for m in mentions]
        ),
        "document level with the linker": document_counts(
            documents, link(documents, mentions, KINDS_RULE)
        ),
    }


def ecbplus_counts(folder: Path, data: Path) -> Counts:
    """(articles, kinds, 4) counts on the ECB+ train and development topics, linked as
    ``bench/entities_ecbplus_eval.py`` links them (every article in order, the knowledge base
    growing)."""
    docs = load_ecbplus(data / "docs.jsonl")
    mentions = TrainedRecognizer(folder).recognize([document_text(d.title, d.body) for d in docs])
    kb = KnowledgeBase.from_seed()
    linker = EntityLinker(kb, linking_config(KINDS_RULE, HERALDS))
    return score(docs, mentions, read_gold(data), linker, kb, SPLITS["traindev"]).counts()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_data_argument(parser, "conll2003", "ecbplus")
    parser.add_argument("--model", type=Path, help="the candidate's folder")
    parser.add_argument("--against", type=Path, default=bundled_recognizer_folder())
    parser.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="write the counts of --against with this checkout's linker (.npz), compare none",
    )
    parser.add_argument(
        "--saved",
        type=Path,
        nargs=2,
        metavar=("CANDIDATE", "AGAINST"),
        help="compare two files written by --save (two checkouts: recogniser and linker)",
    )
    args = parser.parse_args(argv)
    documents = read_split(args.data / "conll2003", "dev")
    if args.save is not None:
        counts = conll_counts(args.against, documents)
        counts["ecbplus"] = ecbplus_counts(args.against, args.data / "ecbplus")
        np.savez(args.save, **counts)
        return 0
    if args.saved is not None:
        candidate, against = (dict(np.load(path)) for path in args.saved)
        names = [str(path) for path in args.saved]
    elif args.model is not None:
        candidate = conll_counts(args.model, documents)
        against = conll_counts(args.against, documents)
        candidate["ecbplus"] = ecbplus_counts(args.model, args.data / "ecbplus")
        against["ecbplus"] = ecbplus_counts(args.against, args.data / "ecbplus")
        names = [str(args.model), str(args.against)]
    else:
        parser.error("give --model, --save or --saved")
    report(documents, candidate, against, names)
    return 0


def report(
    documents: list[Document],
    candidate: dict[str, Counts],
    against: dict[str, Counts],
    names: list[str],
) -> None:
    """Both sides' tables and their paired differences, per class of article, then ECB+."""
    kinds = {"mention level": MENTION_TYPES}
    classes = {
        "general": np.array([d.kind == "general" for d in documents]),
        "sports": np.array([d.kind == "sports" for d in documents]),
        "all": np.ones(len(documents), dtype=bool),
    }
    print(f"CoNLL-2003 dev: {names[0]} (candidate) - {names[1]}, paired over articles")
    for cls, keep in classes.items():
        print(f"\n  == {cls} ({int(keep.sum())} articles) ==")
        for name, counts in candidate.items():
            if name == "ecbplus":
                continue
            scored = kinds.get(name, DOCUMENT_KINDS)
            table(f"{name}, candidate", counts[keep], scored)
            table(f"{name}, against", against[name][keep], scored)
            difference(f"{name}, candidate - against", counts[keep], against[name][keep], scored)
    print("\nECB+ train and dev topics, document level with the linker")
    table("candidate", candidate["ecbplus"], KINDS)
    table("against", against["ecbplus"], KINDS)
    difference("candidate - against", candidate["ecbplus"], against["ecbplus"], KINDS)


if __name__ == "__main__":
    raise SystemExit(main())
