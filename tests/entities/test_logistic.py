"""The linker's trained models read an input a row lacks (NaN) as its training mean."""

from __future__ import annotations

import math

from herald.entities.kinds import CONFIDENCE, FEATURES, bundled


def test_an_unknown_input_reads_as_its_training_mean() -> None:
    model = bundled()
    columns = [FEATURES.index(name) for name in CONFIDENCE]
    at_mean = list(model.mean)
    unknown = [math.nan if i in columns else v for i, v in enumerate(at_mean)]
    assert model.probabilities(unknown) == model.probabilities(at_mean)
    # and the input matters when it is known: a low confidence moves the probabilities
    low = [0.2 if i in columns else v for i, v in enumerate(at_mean)]
    assert model.probabilities(low) != model.probabilities(at_mean)
