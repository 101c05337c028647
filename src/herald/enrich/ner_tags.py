"""From per-word tag scores to names: BIO decoding that never yields an ill-formed sequence.

The tagger scores each word with log-probabilities over ``O`` and ``B-``/``I-`` tags of each
kind. Taking the best tag per word can give an ``I-ORG`` after an ``O`` or after a ``B-PER``;
instead the best sequence in which every ``I-X`` follows a ``B-X`` or ``I-X`` is found by
Viterbi decoding (the transitions are allowed or not; the scores are the model's own).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

_FORBIDDEN = -1e9


def allowed_transitions(tags: Sequence[str]) -> npt.NDArray[np.float32]:
    """``[previous, next]``: 0 where ``next`` may follow ``previous``, a large negative else."""
    n = len(tags)
    out = np.zeros((n, n), dtype=np.float32)
    for j, tag in enumerate(tags):
        if not tag.startswith("I-"):
            continue
        kind = tag[2:]
        for i, previous in enumerate(tags):
            if previous[2:] != kind or previous == "O":
                out[i, j] = _FORBIDDEN
    return out


def start_scores(tags: Sequence[str]) -> npt.NDArray[np.float32]:
    return np.array([_FORBIDDEN if t.startswith("I-") else 0.0 for t in tags], dtype=np.float32)


def decode(
    scores: npt.NDArray[np.float32],
    transitions: npt.NDArray[np.float32],
    start: npt.NDArray[np.float32],
) -> list[int]:
    """The best well-formed tag sequence for ``scores`` (words x tags)."""
    return decode_many([scores], transitions, start)[0]


def decode_many(
    matrices: Sequence[npt.NDArray[np.float32]],
    transitions: npt.NDArray[np.float32],
    start: npt.NDArray[np.float32],
) -> list[list[int]]:
    """The best well-formed tag sequence for each matrix (words x tags), all stepped through
    together: one set of array operations per word position, not one per word of every run."""
    paths: list[list[int]] = [[] for _ in matrices]
    # Longest first: the runs still going at a position are then a prefix of the batch.
    order = sorted(
        (i for i, m in enumerate(matrices) if m.shape[0]), key=lambda i: -matrices[i].shape[0]
    )
    if not order:
        return paths
    tags = transitions.shape[0]
    lengths = [matrices[i].shape[0] for i in order]
    width = lengths[0]
    scores = np.zeros((len(order), width, tags), dtype=np.float32)
    for row, i in enumerate(order):
        scores[row, : lengths[row]] = matrices[i]
    best = start + scores[:, 0]
    back = np.zeros((len(order), width, tags), dtype=np.int16)  # tag numbers
    going = len(order)
    for w in range(1, width):
        while lengths[going - 1] <= w:
            going -= 1
        candidates = best[:going, :, None] + transitions
        back[:going, w] = candidates.argmax(axis=1)
        best[:going] = candidates.max(axis=1) + scores[:going, w]
    for row, i in enumerate(order):
        steps = back[row, : lengths[row]].tolist()
        path = [int(best[row].argmax())]
        for w in range(lengths[row] - 1, 0, -1):
            path.append(steps[w][path[-1]])
        paths[i] = path[::-1]
    return paths


def spans(tags: Sequence[str], path: Sequence[int]) -> list[tuple[int, int, str]]:
    """``(first word, stop, kind)`` of each name in a decoded sequence."""
    out: list[tuple[int, int, str]] = []
    start, kind = -1, ""
    for i, index in enumerate([*path, 0]):
        tag = tags[index] if i < len(path) else "O"
        if start >= 0 and not (tag.startswith("I-") and tag[2:] == kind):
            out.append((start, i, kind))
            start = -1
        if tag.startswith("B-"):
            start, kind = i, tag[2:]
    return out
