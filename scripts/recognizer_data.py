"""Training examples for Herald's recogniser from CoNLL-2003 (train and development splits only).

Each document's sentences are packed into windows of at most ``max_pieces`` word pieces, so the
model sees the sentences around a name as it does at run time. Labels are BIO tags over the
CoNLL types (PER, ORG, LOC, MISC); with a silver file (scripts/recognizer_silver.py) a MISC name
that spaCy's recogniser gives the same span as a nationality or group, an event or a product is
relabelled NORP, EVENT or PRODUCT, the kinds Herald links.

Casing augmentation: a share of the windows is shown as if written in all capitals, in title
case or without capitals (only the casing feature changes; the encoder reads lower case), so
headlines and lower-case transcripts are not new to the model.

The official test split (eng.testb) is never read: ``read_conll`` refuses any other file name.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from herald.enrich.ner_words import Mode, casing_ids, mode, windows

SPLITS = {"train": "train.txt", "dev": "valid.txt"}
# A word tagged X is not scored: the dataset does not say whether it is part of a name the way
# CoNLL-2003 would (scripts/gum_to_conll.py: a nationality GUM marks as no mention).
UNSCORED = "X"
TYPES = ("PER", "ORG", "LOC", "MISC")
FINE_TYPES = ("PER", "ORG", "LOC", "NORP", "EVENT", "PRODUCT", "MISC")


@dataclass
class Sentence:
    words: list[str]
    tags: list[str]  # BIO


@dataclass
class Document:
    index: int
    sentences: list[Sentence] = field(default_factory=list)


def read_conll(folder: Path, split: str) -> list[Document]:
    """The documents of a split ("train" or "dev"), with IOB1 tags turned into BIO."""
    if split not in SPLITS:
        raise SystemExit(
            f"split {split!r}: only {sorted(SPLITS)} may be read (the test split never)"
        )
    return read_tagged(folder / SPLITS[split])


# Other annotated English with a licence that allows training on it, in the CoNLL file format
# (a word and its tag per line, a blank line between sentences, ``-DOCSTART-`` between
# documents): each name's types mapped onto CoNLL's (a type missing here becomes no name).
EXTRA_TYPES: dict[str, dict[str, str]] = {
    # Wikipedia articles tagged with CoNLL-2003's types (Balasuriya et al. 2009; CC BY 4.0).
    "wikigold": {t: t for t in TYPES},
    # Social media posts (Derczynski et al., W-NUT 2017; CC BY 4.0).
    "wnut17": {
        "person": "PER",
        "location": "LOC",
        "corporation": "ORG",
        "group": "ORG",
        "creative-work": "MISC",
        "product": "MISC",
    },
    # Named entities of GUM's openly licensed genres, mapped onto CoNLL's types by
    # scripts/gum_to_conll.py (Zeldes 2017; annotations CC BY 4.0).
    "gum": {t: t for t in TYPES},
    # The same with people's names unscored: GUM cuts them otherwise than CoNLL-2003 does.
    "gum-places-orgs": {"PER": UNSCORED, "ORG": "ORG", "LOC": "LOC", "MISC": "MISC"},
}


def add_extra_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--extra",
        action="append",
        default=[],
        help=f"NAME=PATH: more annotated training data, NAME one of {sorted(EXTRA_TYPES)}",
    )


def read_extra(spec: str) -> tuple[str, list[Document]]:
    """``NAME=PATH`` of :data:`EXTRA_TYPES`: the dataset's name and its documents."""
    name, _, path = spec.partition("=")
    if name not in EXTRA_TYPES or not path:
        raise SystemExit(f"--extra {spec!r}: NAME=PATH with NAME one of {sorted(EXTRA_TYPES)}")
    return name, read_tagged(Path(path), EXTRA_TYPES[name])


def read_tagged(path: Path, types: dict[str, str] | None = None) -> list[Document]:
    """A file in the CoNLL format, IOB1 or BIO tags turned into BIO, with ``types`` mapping
    each name's type onto CoNLL's. A file without ``-DOCSTART-`` lines (posts) holds one
    document per sentence."""
    lines = path.read_text("utf-8").splitlines()
    per_sentence = not any(line.startswith("-DOCSTART-") for line in lines)
    docs: list[Document] = []
    words: list[str] = []
    tags: list[str] = []

    def close_sentence() -> None:
        if words:
            if not docs or per_sentence:
                docs.append(Document(len(docs)))
            docs[-1].sentences.append(Sentence(list(words), _bio(tags)))
            words.clear()
            tags.clear()

    for line in lines:
        if line.startswith("-DOCSTART-"):
            close_sentence()
            docs.append(Document(len(docs)))
            continue
        if not line.strip():
            close_sentence()
            continue
        parts = line.split()
        words.append(parts[0])
        tag = parts[-1]
        if types is not None and tag not in ("O", UNSCORED):
            kind = types.get(tag[2:])
            tag = UNSCORED if kind == UNSCORED else f"{tag[:2]}{kind}" if kind else "O"
        tags.append(tag)
    close_sentence()
    return [d for d in docs if d.sentences]


def _bio(iob1: list[str]) -> list[str]:
    out: list[str] = []
    for i, tag in enumerate(iob1):
        if tag in ("O", UNSCORED):
            out.append(tag)
            continue
        kind = tag[2:]
        previous = iob1[i - 1][2:] if i and iob1[i - 1] not in ("O", UNSCORED) else None
        starts = tag.startswith("B-") or previous != kind
        out.append(("B-" if starts else "I-") + kind)
    return out


def spans(tags: list[str]) -> list[tuple[int, int, str]]:
    """(first word, stop, type) of each BIO span."""
    out: list[tuple[int, int, str]] = []
    start, kind = -1, ""
    for i, tag in enumerate([*tags, "O"]):
        if start >= 0 and not (tag.startswith("I-") and tag[2:] == kind):
            out.append((start, i, kind))
            start = -1
        if tag.startswith("B-") or (tag.startswith("I-") and start < 0):
            start, kind = i, tag[2:]
    return out


def relabel(docs: list[Document], silver: dict[str, str], split: str) -> None:
    """MISC spans that spaCy labelled the same way become NORP, EVENT or PRODUCT."""
    for doc in docs:
        for s_index, sentence in enumerate(doc.sentences):
            for start, stop, kind in spans(sentence.tags):
                if kind != "MISC":
                    continue
                fine = silver.get(f"{split}:{doc.index}:{s_index}:{start}:{stop}")
                if fine:
                    sentence.tags[start] = f"B-{fine}"
                    for i in range(start + 1, stop):
                        sentence.tags[i] = f"I-{fine}"


def training_documents(
    folder: Path, silver: dict[str, str], extra: list[str]
) -> tuple[list[Document], list[Document]]:
    """The training documents (CoNLL's train split, then each ``NAME=PATH`` of ``extra``) and
    CoNLL's development documents, MISC names relabelled by the silver file."""
    train, dev = read_conll(folder, "train"), read_conll(folder, "dev")
    relabel(train, silver, "train")
    relabel(dev, silver, "dev")
    for name, docs in map(read_extra, extra):
        relabel(docs, silver, name)
        train += docs
    return train, dev


def tag_names(types: tuple[str, ...]) -> list[str]:
    return ["O", *[f"{p}-{t}" for t in types for p in ("B", "I")]]


@dataclass
class Example:
    piece_ids: list[int]
    casing: list[int]
    labels: list[int]  # -100 where not the first piece of a word to score


_AUGMENT = ((Mode.ALL_CAPITALS, 0.08), (Mode.TITLE_CASE, 0.04), (Mode.NO_CAPITALS, 0.04))


def _recase(words: list[str], target: Mode) -> list[str]:
    if target is Mode.ALL_CAPITALS:
        return [w.upper() for w in words]
    if target is Mode.NO_CAPITALS:
        return [w.lower() for w in words]
    return [w[:1].upper() + w[1:] if len(w) >= 4 or w[:1].isupper() else w for w in words]


def examples(
    docs: list[Document],
    tokenizer: Any,
    tags: list[str],
    max_pieces: int,
    rng: random.Random | None = None,
) -> list[Example]:
    """One example per window; with ``rng`` some windows are re-cased (training only)."""
    index = {t: i for i, t in enumerate(tags)}
    out: list[Example] = []
    for doc in docs:
        encoded = []
        for sentence in doc.sentences:
            words = sentence.words
            target = None
            if rng is not None:
                roll = rng.random()
                for candidate, share in _AUGMENT:
                    if roll < share:
                        target = candidate
                        break
                    roll -= share
            shown = _recase(words, target) if target is not None else words
            casing = casing_ids(shown, mode(shown))
            pieces = [
                tokenizer.encode(w.lower(), add_special_tokens=False).ids or [100] for w in words
            ]
            labels = [-100 if t == UNSCORED else index.get(t, 0) for t in sentence.tags]
            encoded.append((pieces, casing, labels))
        lengths = [sum(len(p) for p in e[0]) for e in encoded]
        for first, stop, _ in windows(lengths, max_pieces - 2, 0):
            ids, casing, labels = [101], [0], [-100]
            for pieces, word_casing, word_labels in encoded[first:stop]:
                for word_pieces, c, label in zip(pieces, word_casing, word_labels, strict=True):
                    ids += word_pieces
                    casing += [c] * len(word_pieces)
                    labels += [label] + [-100] * (len(word_pieces) - 1)
            ids, casing, labels = (
                ids[: max_pieces - 1],
                casing[: max_pieces - 1],
                labels[: max_pieces - 1],
            )
            out.append(Example([*ids, 102], [*casing, 0], [*labels, -100]))
    return out


def load_silver(path: Path | None) -> dict[str, str]:
    return json.loads(path.read_text("utf-8")) if path else {}
