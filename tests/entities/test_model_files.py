"""The linker's trained models ship as data files that name their features: Herald reads the
bundled files, and refuses a file whose features are not the ones it computes."""

from __future__ import annotations

import json
from importlib import resources
from types import ModuleType

import pytest

from herald.entities import admission, kinds, link_model

MODELS = (admission, kinds, link_model)


@pytest.mark.parametrize("module", MODELS, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_a_model_for_other_features_is_refused(module: ModuleType) -> None:
    path = f"linker/{module.MODEL_FILE}"
    data = json.loads(resources.files("herald.data").joinpath(path).read_text("utf-8"))
    assert module.read_model(data) == module.bundled()
    assert module.bundled().features == tuple(module.FEATURES)
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError, match="retrain"):
        module.read_model(data)
