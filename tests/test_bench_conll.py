"""The CoNLL-2003 reader and evaluation (``bench/conll_data.py``, ``bench/entities_conll_eval.py``):
documents as Herald reads them, gold offsets into that text, the sports/general rule, and the
test split refused.

The tests on the real files read the dataset's folder as the benchmarks do (``HERALD_SHARED_DATA``
or ``shared/data`` beside the checkout, sub-folder ``conll2003``) and are skipped without it; the
rest need no data."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from bench.conll_data import RefusedSplit, class_counts, read_split, split_file
from bench.public_data import DEFAULT

from herald.entities.linking import document_text

ROOT = Path(__file__).resolve().parents[1]
CONLL = DEFAULT / "conll2003"
needs_data = pytest.mark.skipif(
    not (CONLL / "valid.txt").exists(), reason=f"no CoNLL-2003 folder at {CONLL}"
)

SPORTS = """-DOCSTART- -X- -X- O

SOCCER NN B-NP O
- : O O
SHEARER NNP B-NP B-PER
NAMED VBN I-NP O
ENGLAND NNP B-NP B-LOC
CAPTAIN NN I-NP O
. . O O

LONDON NNP B-NP B-LOC
1996-08-30 CD I-NP O

Alan NNP B-NP I-PER
Shearer NNP I-NP I-PER
told VBD B-VP O
" " O O
The DT B-NP B-ORG
Times NNP I-NP I-ORG
" " O O
( ( O O
London NNP B-NP I-LOC
) ) O O
he PRP B-NP O
's VBZ B-VP O
happy JJ B-ADJP O
. . O O

"""
GENERAL = """-DOCSTART- -X- -X- O

Yeltsin NNP B-NP I-PER
endorses VBZ B-VP O
Lebed NNP B-NP B-PER
plan NN I-NP O
. . O O

MOSCOW NNP B-NP I-LOC
1996-08-30 CD I-NP O

Boris NNP B-NP I-PER
Yeltsin NNP I-NP I-PER
Lebed NNP I-NP B-PER
met VBD B-VP O
. . O O
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "valid.txt").write_text(SPORTS + GENERAL)
    (tmp_path / "train.txt").write_text(GENERAL)
    return tmp_path


def test_a_document_is_its_title_and_body_with_gold_offsets_into_the_text(folder: Path) -> None:
    sports, general = read_split(folder, "dev")
    assert sports.doc_id == "dev-1"
    assert sports.title == "SOCCER - SHEARER NAMED ENGLAND CAPTAIN."
    assert sports.body.splitlines() == [
        "LONDON 1996-08-30",
        'Alan Shearer told "The Times" (London) he\'s happy.',
    ]
    assert sports.text == document_text(sports.title, sports.body)
    for document in (sports, general):
        for mention in document.mentions:
            assert document.text[mention.start : mention.end] == mention.text
    found = [(m.text, m.label) for m in sports.mentions]
    assert found == [
        ("SHEARER", "PER"),
        ("ENGLAND", "LOC"),
        ("LONDON", "LOC"),
        ("Alan Shearer", "PER"),
        ("The Times", "ORG"),
        ("London", "LOC"),
    ]
    # a headline in ordinary case is not a title; a B- tag starts a new name of the same type
    assert general.title == ""
    assert general.body.startswith("Yeltsin endorses Lebed plan.\nMOSCOW")
    assert [m.text for m in general.mentions if m.label == "PER"][-2:] == ["Boris Yeltsin", "Lebed"]


def test_documents_are_sports_by_their_headlines_slug(folder: Path) -> None:
    documents = read_split(folder, "dev")
    assert [d.kind for d in documents] == ["sports", "general"]
    assert class_counts(documents) == {"sports": 1, "general": 1}


@pytest.mark.parametrize("split", ["test", "eng.testb", "TEST"])
def test_the_test_split_is_refused(folder: Path, split: str) -> None:
    (folder / "test.txt").write_text(GENERAL)  # present or not, it is never read
    with pytest.raises(RefusedSplit, match="held out"):
        read_split(folder, split)
    with pytest.raises(ValueError, match="choose one of train, dev"):
        split_file(folder, "validation")


def test_the_evaluation_refuses_the_test_split_in_one_line(folder: Path) -> None:
    script = str(ROOT / "bench" / "entities_conll_eval.py")
    run = subprocess.run(
        [sys.executable, script, "--data", str(folder), "--split", "test"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert "error: split 'test': the CoNLL-2003 test split (eng.testb) is held out" in run.stderr


def test_the_recognisers_are_those_herald_runs(folder: Path) -> None:
    from bench.recognizers import Unavailable, recognizer_for

    from herald.enrich.ner_model import TrainedRecognizer

    assert isinstance(recognizer_for("herald"), TrainedRecognizer)
    with pytest.raises(Unavailable, match="no such recogniser"):
        recognizer_for("flair")


@needs_data
def test_the_dev_split_is_216_documents_with_their_gold_offsets() -> None:
    documents = read_split(CONLL, "dev")
    assert len(documents) == 216
    assert sum(len(d.mentions) for d in documents) == 5942  # the published count of eng.testa
    for document in documents:
        assert document.text == document_text(document.title, document.body)
        for mention in document.mentions:
            assert document.text[mention.start : mention.end] == mention.text
    counts = class_counts(documents)
    assert counts["sports"] + counts["general"] == 216
    assert 0.3 < counts["sports"] / 216 < 0.6
    assert len(read_split(CONLL, "train")) == 946


def test_the_evaluation_runs_the_real_recogniser_and_linker(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both scorers on the two articles above, through spaCy's recogniser and Herald's linker;
    "Yeltsin" alone joins "Boris Yeltsin", so the general article holds two gold people."""
    from bench.entities_conll_eval import main

    assert main(["--data", str(folder), "--split", "dev", "--show-errors", "5"]) == 0
    out = capsys.readouterr().out
    assert "CoNLL-2003 dev: 2 documents, {'sports': 1, 'general': 1}" in out
    general = out.split("== general (1 documents) ==")[1].split("==")[0]
    pipeline = general.split("recogniser + Herald linker")[1]
    people = next(line for line in pipeline.splitlines() if line.strip().startswith("PER"))
    assert people.split()[-1] == "2"  # gold people
    assert re.search(r"micro +\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", pipeline)
    assert "mention level (exact span and type)" in general
    assert "linker - alone: micro F1" in general
