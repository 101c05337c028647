"""The entity scorers (``bench/entities_conll_score.py``) on small hand-made gold and system
pairs, and the bootstrap intervals (``bench/bootstrap.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from bench import bootstrap
from bench.entities_conll_score import (
    Named,
    errors,
    gold_entities,
    mention_counts,
    normalise,
    score_document,
)


def test_names_are_compared_without_case_accents_spaces_or_punctuation() -> None:
    assert normalise("The  U.S.") == normalise("us") == "us"
    assert normalise("Leicestershire's") == "leicestershire"
    assert normalise("Chester-le-Street") == "chester le street"
    assert normalise("O'Brien") == normalise("OBRIEN")
    assert normalise("Liège") == normalise("Liege") == "liege"
    assert normalise("Bistriţa") == "bistrita"


def test_a_surname_alone_joins_the_full_name_on_both_sides() -> None:
    gold = gold_entities([("Phil Simmons", "PER"), ("Simmons", "PER"), ("Leicestershire", "ORG")])
    assert [e.names for e in gold if e.kind == "PER"] == [frozenset({"phil simmons", "simmons"})]
    # Herald found him only by his surname: right, and the one gold person is found
    assert score_document(gold, [Named.of("PER", ["Simmons"])])["PER"] == (1, 1, 1, 1)
    # two system people, "Phil Simmons" and "Simmons": one answer
    both = [Named.of("PER", ["Phil Simmons"]), Named.of("PER", ["Simmons"])]
    assert score_document(gold, both)["PER"] == (1, 1, 1, 1)
    # a lone word that ends no full name stays a person of its own, and is wrong
    assert score_document(gold, [Named.of("PER", ["Phil"])])["PER"] == (0, 1, 0, 1)


def test_an_entity_is_right_by_its_display_name_or_an_alias() -> None:
    gold = gold_entities([("U.S.", "LOC"), ("Washington", "LOC")])
    usa = Named.of("LOC", ["United States", "US", "America"], "United States")
    assert score_document(gold, [usa])["LOC"] == (1, 1, 1, 2)
    washington = Named.of("LOC", ["Washington, D.C.", "Washington"])
    assert score_document(gold, [usa, washington])["LOC"] == (2, 2, 2, 2)


def test_a_name_of_another_kind_is_wrong_and_its_gold_missed() -> None:
    gold = gold_entities([("Leicestershire", "ORG"), ("West Indian", "MISC")])
    system = [Named.of("LOC", ["Leicestershire"])]
    scored = score_document(gold, system)
    assert scored["ORG"] == (0, 0, 0, 1)
    assert scored["LOC"] == (0, 1, 0, 0)
    assert "MISC" not in scored  # not scored at document level
    assert errors(gold, system) == (["leicestershire (LOC, gold ORG)"], ["Leicestershire (ORG)"])


def test_mentions_count_when_span_and_mapped_type_are_exact() -> None:
    gold = [(0, 6, "LOC"), (10, 22, "PER"), (30, 37, "MISC")]
    found = [(0, 6, "GPE"), (10, 15, "PERSON"), (30, 37, "NORP"), (40, 45, "DATE")]
    counts = mention_counts(gold, found)
    assert counts["LOC"] == (1, 1, 1, 1)
    assert counts["PER"] == (0, 1, 0, 1)  # "Phil" for "Phil Simmons"
    assert counts["MISC"] == (1, 1, 1, 1)
    assert counts["ORG"] == (0, 0, 0, 0)


def _documents(n: int, seed: int = 1) -> bootstrap.Counts:
    """Per-document counts of a system right about 80% of the time."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(1, 10, size=n)
    answers = rng.integers(1, 10, size=n)
    right = rng.binomial(answers, 0.8)
    found = np.minimum(rng.binomial(gold, 0.7), gold)
    return bootstrap.as_counts(np.stack([right, answers, found, gold], axis=1).tolist())


def test_the_interval_holds_the_point_estimate_and_narrows_with_more_documents() -> None:
    few = _documents(50)
    for metric in (bootstrap.precision, bootstrap.recall, bootstrap.f1):
        small = bootstrap.interval(few, metric)
        assert small.low < small.point < small.high
        large = bootstrap.interval(np.tile(few, (8, 1)), metric)
        assert large.point == pytest.approx(small.point)
        assert large.high - large.low < (small.high - small.low) / 2
    assert bootstrap.prf(few) == bootstrap.prf(few)  # seeded
    p = bootstrap.prf(few)["P"].point
    total = few.sum(axis=0)
    assert p == pytest.approx(total[0] / total[1])


def test_the_paired_difference_of_a_system_with_itself_is_zero() -> None:
    docs = _documents(80)
    same = bootstrap.paired_difference(docs, docs.copy(), bootstrap.f1)
    assert (same.point, same.low, same.high) == (0.0, 0.0, 0.0)
    # a system that finds every gold item, right in every answer, is shown to be better
    perfect = docs.copy()
    perfect[:, 0] = perfect[:, 1]
    perfect[:, 2] = perfect[:, 3]
    gain = bootstrap.paired_difference(perfect, docs, bootstrap.f1)
    assert gain.low > 0
    assert gain.contains(gain.point)
    with pytest.raises(ValueError, match="same documents"):
        bootstrap.paired_difference(docs, docs[:10], bootstrap.f1)
