"""The bundled demo corpus holds no article of a dataset Herald is evaluated on.

The demo is what a user reads first and what entity and cluster rules get tuned against by eye;
an evaluation article in it would leak the test. The evaluation datasets are read from the folder
the benchmarks read (``HERALD_SHARED_DATA``, else ``shared/data`` beside the checkout;
docs/benchmarks.md, "Datasets"). Without that folder the test is skipped and says why, unless
``HERALD_REQUIRE_DATA=1`` (CI), which makes that a failure.

A demo item matches an evaluation article when, after normalising (lower case, letters and digits
only, single spaces), its title equals the article's title, its URL equals the article's URL, or
one of its sentences of at least six words equals one of the article's sentences.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.public_data import DEFAULT

from herald.ingest.demo import demo_corpus_bytes

REQUIRE_DATA = os.environ.get("HERALD_REQUIRE_DATA") == "1"
# The files read, per dataset folder. The Miranda 2018 clustering data is not redistributed (its
# folder holds reference scores only); if its articles are ever there, they are read too.
NEEDED = (
    "ecbplus/docs.jsonl",
    "wcep-wikitimes-2015-09/wikitimes_CEP_2015-09.json",
    "conll2003/train.txt",
    "conll2003/valid.txt",
    "scifact-beir/corpus.jsonl",
)
MIRANDA = tuple(f"news-clustering-miranda2018/dataset.{split}.json" for split in ("dev", "test"))
MIN_WORDS = 6
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z0-9])|\n+")


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def sentences(text: str) -> Iterator[str]:
    for piece in _SENTENCE_END.split(text):
        words = normalise(piece)
        if words.count(" ") + 1 >= MIN_WORDS:
            yield words


class Index:
    """Normalised titles, URLs and sentences of the evaluation articles, each with its dataset."""

    def __init__(self) -> None:
        self.titles: dict[str, str] = {}
        self.urls: dict[str, str] = {}
        self.sentences: dict[str, str] = {}

    def add(self, dataset: str, title: str | None, text: str, url: str | None = None) -> None:
        if title and normalise(title).count(" ") + 1 >= MIN_WORDS:
            self.titles.setdefault(normalise(title), dataset)
        if url:
            self.urls.setdefault(normalise(url.split("://", 1)[-1]), dataset)
        for sentence in sentences(text):
            self.sentences.setdefault(sentence, dataset)

    def matches(self, item: dict[str, object]) -> list[str]:
        found = []
        title, url = str(item.get("title") or ""), item.get("url")
        if normalise(title) in self.titles:
            found.append(f"title of a {self.titles[normalise(title)]} article")
        if isinstance(url, str) and normalise(url.split("://", 1)[-1]) in self.urls:
            found.append(f"URL of a {self.urls[normalise(url.split('://', 1)[-1])]} article")
        text = str(item.get("body") or item.get("transcript") or "")
        segments = item.get("transcript_segments")
        if isinstance(segments, list):
            text += "\n".join(str(s.get("text", "")) for s in segments if isinstance(s, dict))
        for sentence in sentences(f"{title}\n{text}"):
            if sentence in self.sentences:
                found.append(f"sentence of a {self.sentences[sentence]} article: {sentence!r}")
        return found


def conll_sentences(path: Path) -> Iterator[str]:
    words: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        token = line.split(" ", 1)[0]
        if line.strip() and token != "-DOCSTART-":
            words.append(token)
        elif words:
            yield " ".join(words)
            words = []
    if words:
        yield " ".join(words)


def build_index(data: Path) -> Index:
    index = Index()
    for doc in _json_records(data / "ecbplus/docs.jsonl"):
        first = doc["text"].split("\n", 1)[0]
        index.add("ECB+", first, doc["text"], doc.get("source_url"))
    wcep = data / "wcep-wikitimes-2015-09/wikitimes_CEP_2015-09.json"
    for event in json.loads(wcep.read_text(encoding="utf-8")):
        index.add("WCEP", event["description"][:110], event["description"])
    for split in ("train", "valid"):
        for sentence in conll_sentences(data / f"conll2003/{split}.txt"):
            index.add("CoNLL-2003", None, sentence)
    for doc in _json_records(data / "scifact-beir/corpus.jsonl"):
        index.add("SciFact", doc["title"], doc["text"])
    for name in MIRANDA:
        if (data / name).exists():
            for article in _json_records(data / name):
                index.add("Miranda 2018", article.get("title"), article.get("text", ""))
    return index


def _json_records(path: Path) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8").strip()
    if text.startswith("["):
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def evaluation_index() -> Index:
    missing = [name for name in NEEDED if not (DEFAULT / name).exists()]
    if missing:
        reason = (
            f"the evaluation datasets are not in {DEFAULT} (missing {', '.join(missing)}; set "
            'HERALD_SHARED_DATA to their folder: docs/benchmarks.md, "Datasets")'
        )
        if REQUIRE_DATA:
            pytest.fail(reason + " and HERALD_REQUIRE_DATA=1")
        pytest.skip(reason)
    return build_index(DEFAULT)


def test_the_demo_corpus_holds_no_evaluation_article(evaluation_index: Index) -> None:
    items = [json.loads(line) for line in demo_corpus_bytes().splitlines()]
    assert len(items) > 500
    found = {
        str(item.get("external_id") or item.get("url")): hits
        for item in items
        if (hits := evaluation_index.matches(item))
    }
    assert found == {}


def test_the_check_finds_an_evaluation_article(evaluation_index: Index) -> None:
    """Each dataset's articles are in the index: a demo item copying one is caught."""
    data = DEFAULT
    doc = _json_records(data / "ecbplus/docs.jsonl")[500]  # an ECB+ article, with its URL
    ecb = {"title": "A new headline", "url": doc["source_url"] or "", "body": doc["text"]}
    assert any("ECB+" in hit for hit in evaluation_index.matches(ecb))
    event = json.loads((data / "wcep-wikitimes-2015-09/wikitimes_CEP_2015-09.json").read_text())[0]
    assert any("WCEP" in h for h in evaluation_index.matches({"body": event["description"]}))
    sentence = next(s for s in conll_sentences(data / "conll2003/valid.txt") if len(s) > 80)
    assert any("CoNLL" in h for h in evaluation_index.matches({"body": sentence}))
    abstract = _json_records(data / "scifact-beir/corpus.jsonl")[0]
    hits = evaluation_index.matches({"title": abstract["title"], "body": "Unrelated words here."})
    assert any("SciFact" in h for h in hits)
    # Normalising: case, punctuation and spacing do not hide a copy.
    reworded = re.sub(r"\s+", "  ", sentence.upper()).replace(" ,", ",")
    assert evaluation_index.matches({"body": reworded})
    assert not evaluation_index.matches({"title": "Herald", "body": "Nobody wrote this sentence."})
