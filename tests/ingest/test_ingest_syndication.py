"""Syndication fingerprints on real reprints from the ECB+ corpus."""

from __future__ import annotations

import hashlib
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herald.ingest import syndication
from herald.ingest.syndication import (
    MIN_SHINGLES,
    SyndicationIndex,
    TextFingerprint,
    fingerprint,
    is_syndicated,
    shingles,
)

from .conftest import ecbplus_docs

DOCS = ecbplus_docs()


def _fp(doc_id: str) -> TextFingerprint:
    fp = fingerprint(DOCS[doc_id]["text"])
    assert fp is not None
    return fp


def _body(doc_id: str) -> str:
    # The story text without its headline and dateline, as an outlet's page would carry it.
    return "\n".join(DOCS[doc_id]["text"].split("\n")[2:])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("29_1ecbplus", "29_5ecbplus"),  # one AP story: Yahoo Sports and HuffPost
        ("29_1ecbplus", "29_9ecbplus"),  # ... and Sports Illustrated (different headline case)
        ("24_10ecbplus", "24_1ecbplus"),  # i24news edited the Yahoo/AFP copy
        ("22_12ecbplus", "22_14ecbplus"),  # a blog reprinted an excerpt of HuffPost's story
    ],
)
def test_real_reprints_are_recognised(a: str, b: str) -> None:
    assert is_syndicated(_fp(a), _fp(b))
    assert is_syndicated(_fp(b), _fp(a))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("24_1ecbplus", "24_5ecbplus"),  # the same heist written up separately (The Local)
        ("1_10ecbplus", "1_11ecbplus"),  # the same Lohan story, LA Times vs NY Daily News
        ("29_1ecbplus", "24_1ecbplus"),  # unrelated stories
    ],
)
def test_separate_write_ups_of_one_event_are_not_reprints(a: str, b: str) -> None:
    assert not is_syndicated(_fp(a), _fp(b))


def test_a_different_headline_and_small_edits_keep_the_match() -> None:
    original = _body("29_1ecbplus")
    edited = (
        "INDIANAPOLIS (AP) -- "
        + original.replace("Andrew Luck", "Colts quarterback Andrew Luck", 1)
        .replace("unfair", "a bit unfair")
        .replace("Chiefs", "Kansas City", 2)
        + "\nThis story has been corrected to show the score at halftime."
    )
    a, b = fingerprint(original), fingerprint(edited)
    assert a is not None
    assert b is not None
    assert a.jaccard(b) > 0.8
    assert is_syndicated(a, b)


def test_short_texts_get_no_fingerprint() -> None:
    assert fingerprint("Colts beat Chiefs 20-13 to clinch playoff berth.") is None
    words = " ".join(f"w{i}" for i in range(MIN_SHINGLES + 4))
    assert fingerprint(words) is not None


def test_fingerprints_are_deterministic_and_round_trip() -> None:
    a = _fp("29_1ecbplus")
    again = _fp("29_1ecbplus")
    assert a.band_keys() == again.band_keys()
    restored = TextFingerprint.from_bytes(a.to_bytes())
    assert restored.size == a.size
    assert restored.jaccard(a) == 1.0
    assert all(-(2**63) <= key < 2**63 for key in a.band_keys())


def test_fingerprints_do_not_depend_on_the_word_hash_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Word hashes are kept across texts in a bounded table; a full table is replaced by a new
    one, and no fingerprint depends on what the table held before."""
    ids = ["29_1ecbplus", "29_5ecbplus", "24_10ecbplus", "22_12ecbplus"]
    before = [_fp(doc_id).to_bytes() for doc_id in ids]
    monkeypatch.setattr(syndication, "_WORD_HASHES", {})
    monkeypatch.setattr(syndication, "_WORD_HASHES_MAX", 60)
    after = [_fp(doc_id).to_bytes() for doc_id in ids]
    assert after == before
    # Every text has more than 60 distinct words: each one found the table full and started a
    # new one, which holds the last text's words only.
    last = unicodedata.normalize("NFKC", DOCS[ids[-1]]["text"]).casefold()
    assert set(syndication._WORD_HASHES) == {w.encode() for w in re.findall(r"\w+", last)}


def test_fingerprints_are_the_ones_stored_before() -> None:
    """Stored fingerprints and band keys stay comparable with new ones: the digest of these
    texts' signatures, sizes and word counts was computed with the first implementation
    (a regular expression over the text, a deduplication and a scatter-minimum)."""
    digest = hashlib.sha256()
    for doc in DOCS.values():
        for text in (doc["text"], doc["text"].upper(), doc["text"][:600]):
            fp = fingerprint(text)
            digest.update(b"-" if fp is None else fp.to_bytes() + fp.words.to_bytes(4, "big"))
    assert digest.hexdigest() == (
        "f1fdc5131133b9a6b03703c515a0391cbebc707a393f47fb25b425b419611594"
    )


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("aZ9_ -.,\t\n'\u2013\u2019\u00e9\u00df\u01c5\ufb01\u0130\u0663\u00a0\u20ac\ud800")
        ),
        max_size=60,
    )
    | st.text(max_size=60)
)
def test_words_are_the_regular_expressions_words(text: str) -> None:
    expected = re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())
    assert syndication._words(text) == [w.encode("utf-8") for w in expected]


def test_the_index_groups_the_reprints_of_the_fixture_corpus() -> None:
    index = SyndicationIndex()
    article_of: dict[str, str] = {}
    for doc_id in DOCS:
        fp = _fp(doc_id)
        article_of[doc_id] = index.find(fp) or doc_id
        index.add(article_of[doc_id], fp)
    assert article_of["29_5ecbplus"] == article_of["29_9ecbplus"] == article_of["29_1ecbplus"]
    assert article_of["24_10ecbplus"] == article_of["24_1ecbplus"]
    assert article_of["22_14ecbplus"] == article_of["22_12ecbplus"]
    assert len(set(article_of.values())) == 6  # 10 texts, 6 stories
    # No group mixes two ECB+ event clusters.
    for article in set(article_of.values()):
        members = [d for d, a in article_of.items() if a == article]
        assert len({DOCS[d]["subtopic"] for d in members}) == 1


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=40))
def test_estimates_track_the_exact_jaccard(cut: int) -> None:
    words = _body("29_1ecbplus").split()
    start = cut * 10
    part = " ".join(words[start : start + 400])
    whole = " ".join(words)
    a, b = fingerprint(part), fingerprint(whole)
    if a is None or b is None:
        return
    exact = len(shingles(part) & shingles(whole)) / len(shingles(part) | shingles(whole))
    assert abs(a.jaccard(b) - exact) < 0.2
