"""Named entities of the GUM corpus in the CoNLL file format, for `--extra gum=PATH`.

    python scripts/gum_to_conll.py --dep GUM/dep --out gum.conll.txt

GUM (the Georgetown University Multilayer corpus, Zeldes 2017; its entity annotations CC BY 4.0)
marks every mention of an entity, named or not, with its type (person, organization, place,
event, object, abstract, ...). Read from its Universal Dependencies files (`dep/*.conllu`), a
mention is a name when its head word is a proper noun, and the name is the run of words around
that head tagged as proper nouns or numbers (by their Penn Treebank tags: "United" of "United
States"), joined by "of", "and", "&", "for", "de" or "the". A title the corpus attaches as a
description ("President" of "President Donald Trump") stays out, as CoNLL-2003 leaves titles
out. Types are mapped onto CoNLL-2003's: person PER,
organization ORG, place LOC, event, object and abstract MISC; time and quantity are no name.

What GUM does not annotate the CoNLL way is left unscored (tag `X`): a capitalised adjective
outside a name ("Australian children": CoNLL-2003 tags nationalities MISC, GUM no mention), a
capitalised proper noun outside every name, a "The" right before a name, and names of animals,
plants and substances.

Only the genres whose texts allow use beyond research and non-commercial use are read: news and
interviews (Wikinews, CC BY 2.5), academic writing and court transcripts (CC BY 4.0),
biographies and travel guides (Wikipedia and Wikivoyage, CC BY-SA 3.0). The others (fiction,
how-to guides, letters, essays, podcasts, Reddit, and genres without a stated licence) are
skipped.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from pathlib import Path

GENRES = ("news", "interview", "academic", "court", "bio", "voyage")
TYPES = {
    "person": "PER",
    "organization": "ORG",
    "place": "LOC",
    "event": "MISC",
    "object": "MISC",
    "abstract": "MISC",
    "time": "O",
    "quantity": "O",
}
UNSCORED = "X"
JOINING = {"of", "and", "&", "for", "de", "the", "-"}
_OPEN = re.compile(r"\((\d+)-([a-z]+)[^()]*(\))?")
_CLOSE = re.compile(r"^(\d+)\)")


@dataclass
class Word:
    form: str
    upos: str
    xpos: str  # the Penn Treebank tag: "United" of "United States" is a verb but NNP
    head: int  # index in the sentence, -1 for the root
    deprel: str


@dataclass
class Mention:
    start: int
    stop: int
    etype: str


@dataclass
class Sentence:
    words: list[Word] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)


def read_document(path: Path) -> list[Sentence]:
    """The sentences of a GUM `.conllu` file, each with its entity mentions."""
    sentences: list[Sentence] = []
    current = Sentence()
    open_mentions: dict[str, list[tuple[int, str]]] = {}
    for line in path.read_text("utf-8").splitlines():
        if not line.strip():
            if current.words:
                sentences.append(current)
            current = Sentence()
            open_mentions = {}
            continue
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if "-" in cols[0] or "." in cols[0]:
            continue  # multi-word tokens and empty nodes
        index = len(current.words)
        current.words.append(Word(cols[1], cols[3], cols[4], int(cols[6]) - 1, cols[7]))
        entity = next((m[7:] for m in cols[9].split("|") if m.startswith("Entity=")), "")
        _read_entity(entity, index, current, open_mentions)
    if current.words:
        sentences.append(current)
    return sentences


def _read_entity(
    value: str, index: int, sentence: Sentence, open_mentions: dict[str, list[tuple[int, str]]]
) -> None:
    """Opens and closes mentions at word ``index`` from its `Entity=` value."""
    rest = value
    while rest:
        opening = _OPEN.match(rest)
        if opening:
            ident, etype, closed = opening.group(1), opening.group(2), opening.group(3)
            if closed:
                sentence.mentions.append(Mention(index, index + 1, etype))
            else:
                open_mentions.setdefault(ident, []).append((index, etype))
            rest = rest[opening.end() :]
            continue
        closing = _CLOSE.match(rest)
        if closing:
            stack = open_mentions.get(closing.group(1))
            if stack:
                start, etype = stack.pop()
                sentence.mentions.append(Mention(start, index + 1, etype))
            rest = rest[closing.end() :]
            continue
        rest = rest[1:]


def head_of(sentence: Sentence, mention: Mention) -> int:
    """The mention's word whose head lies outside it."""
    for i in range(mention.start, mention.stop):
        if not mention.start <= sentence.words[i].head < mention.stop:
            return i
    return mention.start


def _in_name(word: Word) -> bool:
    return word.xpos in {"NNP", "NNPS", "CD"} and word.deprel != "nmod:desc"


def name_span(sentence: Sentence, mention: Mention) -> tuple[int, int] | None:
    """The name inside a mention headed by a proper noun, or None for a mention of no name."""
    words = sentence.words
    head = head_of(sentence, mention)
    if words[head].upos != "PROPN" and words[head].xpos not in {"NNP", "NNPS"}:
        return None
    start = stop = head
    while start > mention.start and (
        _in_name(words[start - 1]) or words[start - 1].form.lower() in JOINING
    ):
        start -= 1
    while stop + 1 < mention.stop and (
        _in_name(words[stop + 1]) or words[stop + 1].form.lower() in JOINING
    ):
        stop += 1
    while start < head and not _in_name(words[start]):
        start += 1  # a name starts with a name's word ("the" and "of" only join)
    while stop > head and not _in_name(words[stop]):
        stop -= 1
    return start, stop + 1


def tags(sentence: Sentence) -> list[str]:
    """CoNLL tags (BIO, with `X` unscored) for a sentence's words."""
    out = ["O"] * len(sentence.words)
    taken = [False] * len(sentence.words)
    # outer mentions first: "University of Sydney" is the organisation's name, "Sydney" in it
    for mention in sorted(sentence.mentions, key=lambda m: (m.start - m.stop, m.start)):
        span = name_span(sentence, mention)
        if span is None or any(taken[span[0] : span[1]]):
            continue
        kind = TYPES.get(mention.etype, UNSCORED)
        if any("@" in w.form or "/" in w.form for w in sentence.words[span[0] : span[1]]):
            kind = UNSCORED  # an address, not a name
        for i in range(*span):
            taken[i] = True
            if kind in ("O", UNSCORED):
                out[i] = kind
            else:
                out[i] = ("B-" if i == span[0] else "I-") + kind
        for i in range(mention.start, mention.stop):
            if not taken[i] and sentence.words[i].deprel == "nmod:desc":
                taken[i] = True  # a title, "President" of "President Donald Trump": no name
        if span[0] > 0 and sentence.words[span[0] - 1].form == "The":
            out[span[0] - 1] = UNSCORED
    for i, word in enumerate(sentence.words):
        if (
            not taken[i]
            and word.form[:1].isupper()
            and (word.upos in {"ADJ", "PROPN"} or word.xpos in {"NNP", "NNPS"})
        ):
            out[i] = UNSCORED
    return out


def convert(dep: Path) -> str:
    lines: list[str] = []
    for path in sorted(dep.glob("GUM_*.conllu")):
        genre = path.stem.split("_")[1]
        if genre not in GENRES:
            continue
        lines += ["-DOCSTART- O", ""]
        for sentence in read_document(path):
            lines += [f"{w.form} {t}" for w, t in zip(sentence.words, tags(sentence), strict=True)]
            lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dep", type=Path, required=True, help="GUM's dep/ folder")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.write_text(convert(args.dep), "utf-8")


if __name__ == "__main__":
    main()
