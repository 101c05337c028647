"""BIO decoding: the best sequence in which every I- tag continues a name of its kind."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from herald.enrich.ner_tags import (
    allowed_transitions,
    decode,
    decode_many,
    spans,
    start_scores,
)

TAGS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG"]


def _decode(scores: np.ndarray) -> list[str]:
    path = decode(scores.astype(np.float32), allowed_transitions(TAGS), start_scores(TAGS))
    return [TAGS[i] for i in path]


def test_an_orphan_inside_tag_is_not_taken() -> None:
    # Per word the best tags would be O, I-ORG, I-ORG: ill-formed. The name is kept, well formed.
    probabilities = [
        [0.9, 0.05, 0.0, 0.05, 0.0],
        [0.05, 0.0, 0.0, 0.35, 0.6],
        [0.1, 0.0, 0.0, 0.0, 0.9],
    ]
    assert _decode(np.log(np.array(probabilities) + 1e-6)) == ["O", "B-ORG", "I-ORG"]


def test_names_are_read_off_the_sequence() -> None:
    path = [TAGS.index(t) for t in ["B-PER", "I-PER", "O", "B-ORG", "B-ORG", "I-ORG"]]
    assert spans(TAGS, path) == [(0, 2, "PER"), (3, 4, "ORG"), (4, 6, "ORG")]


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 12), st.just(len(TAGS))), elements=st.floats(-20, 0)
    )
)
def test_decoded_sequences_are_well_formed(scores: np.ndarray) -> None:
    tags = _decode(scores)
    for previous, tag in zip(["O", *tags], tags, strict=False):
        if tag.startswith("I-"):
            assert previous[2:] == tag[2:], tags


def test_the_best_sequence_is_found() -> None:
    rng = np.random.default_rng(7)
    allowed = allowed_transitions(TAGS)
    start = start_scores(TAGS)
    for _ in range(50):
        scores = np.log(rng.dirichlet(np.ones(len(TAGS)), size=4)).astype(np.float32)
        best = max(
            (
                (
                    sum(scores[w, t] for w, t in enumerate(p))
                    + start[p[0]]
                    + sum(allowed[a, b] for a, b in pairwise(p)),
                    p,
                )
                for p in np.ndindex(*([len(TAGS)] * 4))
            ),
        )[1]
        assert tuple(decode(scores, allowed, start)) == tuple(best)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        arrays(
            np.float32,
            st.tuples(st.integers(0, 9), st.just(len(TAGS))),
            elements=st.floats(-20, 0, width=32),
        ),
        max_size=6,
    )
)
def test_runs_decoded_together_get_the_paths_decoded_alone(runs: list[np.ndarray]) -> None:
    allowed, start = allowed_transitions(TAGS), start_scores(TAGS)
    assert decode_many(runs, allowed, start) == [decode(r, allowed, start) for r in runs]
