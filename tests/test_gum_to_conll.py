"""``scripts/gum_to_conll.py``: GUM's entity mentions turned into CoNLL-2003 names, run as its
docstring says, on sentences written for this test in GUM's Universal Dependencies format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# "President Donald Trump met the University of Sydney's staff in the United States ." with
# GUM's entity brackets: a person with a title attached as a description, an organisation with
# a place inside it, a place whose first word is tagged a verb by UD (NNP by Penn), then a
# sentence with a nationality inside a mention and an e-mail address.
ROWS = [
    "# newdoc id = GUM_news_test",
    "# sent_id = GUM_news_test-1",
    "1 President President PROPN NNP _ 2 nmod:desc _ "
    "Entity=(1-person-new-sssss-cf1-1,2,3-coref-Donald_Trump",
    "2 Donald Donald PROPN NNP _ 4 nsubj _ _",
    "3 Trump Trump PROPN NNP _ 2 flat _ Entity=1)",
    "4 met meet VERB VBD _ 0 root _ _",
    "5 the the DET DT _ 6 det _ "
    "Entity=(2-person-new-sssss-cf2-9-coref(3-organization-new-sssss-cf3-6-coref",
    "6 University University PROPN NNP _ 10 nmod:poss _ _",
    "7 of of ADP IN _ 8 case _ _",
    "8 Sydney Sydney PROPN NNP _ 6 nmod _ Entity=(4-place-new-sssss-cf4-8-coref-Sydney)",
    "9-10 Sydney's _ _ _ _ _ _ _ _",
    "9 's 's PART POS _ 6 case _ Entity=3)",
    "10 staff staff NOUN NN _ 4 obj _ Entity=2)",
    "11 in in ADP IN _ 14 case _ _",
    "12 the the DET DT _ 14 det _ Entity=(5-place-new-sssss-cf5-14-coref-United_States",
    "13 United unite VERB NNP _ 14 amod _ _",
    "14 States States PROPN NNPS _ 4 obl _ Entity=5)",
    "15 . . PUNCT . _ 4 punct _ _",
    "",
    "# sent_id = GUM_news_test-2",
    "1 Australian Australian ADJ JJ _ 2 amod _ Entity=(6-person-new-sssss-cf1-2-coref",
    "2 children child NOUN NNS _ 3 nsubj _ Entity=6)",
    "3 wrote write VERB VBD _ 0 root _ _",
    "4 to to ADP IN _ 5 case _ _",
    "5 a@b.org a@b.org PROPN NNP _ 3 obl _ Entity=(7-object-new-sssss-cf2-5-coref)",
    "",
]
# The columns of a word line are separated by tabs in the files (spaces above, for reading).
NEWS = "\n".join(r if r.startswith("#") else r.replace(" ", "\t") for r in ROWS) + "\n"


def _convert(tmp_path: Path, files: dict[str, str]) -> list[list[tuple[str, str]]]:
    dep = tmp_path / "dep"
    dep.mkdir()
    for name, text in files.items():
        (dep / name).write_text(text, "utf-8")
    out = tmp_path / "gum.conll.txt"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts/gum_to_conll.py"),
            "--dep",
            str(dep),
            "--out",
            str(out),
        ],
        check=True,
    )
    sentences: list[list[tuple[str, str]]] = [[]]
    for line in out.read_text("utf-8").splitlines():
        if line.startswith("-DOCSTART-"):
            continue
        if not line.strip():
            if sentences[-1]:
                sentences.append([])
            continue
        word, tag = line.split()
        sentences[-1].append((word, tag))
    return [s for s in sentences if s]


def test_names_are_cut_as_conll_cuts_them(tmp_path: Path) -> None:
    first, second = _convert(tmp_path, {"GUM_news_test.conllu": NEWS})
    assert first == [
        ("President", "O"),  # a title stays out of the name
        ("Donald", "B-PER"),
        ("Trump", "I-PER"),
        ("met", "O"),
        ("the", "O"),
        ("University", "B-ORG"),  # the outer name, with the place inside it
        ("of", "I-ORG"),
        ("Sydney", "I-ORG"),
        ("'s", "O"),
        ("staff", "O"),  # a mention headed by a common noun names nothing
        ("in", "O"),
        ("the", "O"),
        ("United", "B-LOC"),
        ("States", "I-LOC"),
        (".", "O"),
    ]
    # what GUM does not mark the CoNLL way is not scored: a nationality, an address
    assert second == [
        ("Australian", "X"),
        ("children", "O"),
        ("wrote", "O"),
        ("to", "O"),
        ("a@b.org", "X"),
    ]


def test_only_openly_licensed_genres_are_read(tmp_path: Path) -> None:
    fiction = NEWS.replace("GUM_news_test", "GUM_fiction_test")
    read = _convert(tmp_path, {"GUM_news_test.conllu": NEWS, "GUM_fiction_test.conllu": fiction})
    assert len(read) == 2  # the news document's two sentences, not the story's
