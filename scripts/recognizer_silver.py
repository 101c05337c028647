"""Silver kinds for CoNLL's MISC names: which of them spaCy's recogniser calls a nationality or
group (NORP), an event or a product, the kinds Herald links that CoNLL folds into MISC.

    .venv/bin/python scripts/recognizer_silver.py --data DATA/conll2003 --out silver.json

For every MISC span of the train and development splits and of the ``--extra`` training data,
spaCy (the bundled small English pipeline) reads the sentence (its words joined by spaces);
where spaCy found exactly that span with one of those labels, the span's key maps to the label.
Everything else stays MISC.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recognizer_data import add_extra_argument, read_conll, read_extra, spans

FINE = {"NORP", "EVENT", "PRODUCT"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the conll2003 folder")
    parser.add_argument("--out", type=Path, required=True)
    add_extra_argument(parser)
    args = parser.parse_args()
    import spacy

    from herald.enrich.model_files import bundled_spacy_folder

    nlp = spacy.load(bundled_spacy_folder(), disable=["tagger", "parser", "lemmatizer"])
    silver: dict[str, str] = {}
    sets = [(split, read_conll(args.data, split)) for split in ("train", "dev")]
    for split, docs in [*sets, *map(read_extra, args.extra)]:
        keys, texts, offsets = [], [], []
        for doc in docs:
            for s_index, sentence in enumerate(doc.sentences):
                misc = [(a, b) for a, b, kind in spans(sentence.tags) if kind == "MISC"]
                if not misc:
                    continue
                starts, position = [], 0
                for word in sentence.words:
                    starts.append(position)
                    position += len(word) + 1
                keys.append((doc.index, s_index, misc))
                texts.append(" ".join(sentence.words))
                offsets.append(starts)
        counts: Counter[str] = Counter()
        for (d_index, s_index, misc), starts, parsed in zip(
            keys, offsets, nlp.pipe(texts, batch_size=64), strict=True
        ):
            found = {}
            for ent in parsed.ents:
                if ent.label_ in FINE and ent.start_char in starts:
                    first = starts.index(ent.start_char)
                    stop = first + len(ent.text.split(" "))
                    found[(first, stop)] = ent.label_
            for first, stop in misc:
                label = found.get((first, stop), "MISC")
                counts[label] += 1
                if label != "MISC":
                    silver[f"{split}:{d_index}:{s_index}:{first}:{stop}"] = label
        print(split, dict(counts))
    args.out.write_text(json.dumps(silver, sort_keys=True), "utf-8")


if __name__ == "__main__":
    main()
