"""The bundled models' files are checked against the digests recorded in Herald before use; a
changed file stops the model from loading with an error naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from herald.enrich import model_files, ner, onnx_embedding
from herald.enrich.model_files import (
    EMBEDDING_MODEL,
    SPACY_MODEL,
    ModelFilesError,
    bundled_embedding_folder,
    bundled_spacy_folder,
    recorded_digests,
    verify_model_folder,
)
from herald.enrich.ner import EntityRecognizer
from herald.enrich.onnx_embedding import OnnxEmbedder


def test_the_installed_models_match_the_recorded_digests() -> None:
    embedding = verify_model_folder(EMBEDDING_MODEL, bundled_embedding_folder())
    assert embedding["model.safetensors"] == (
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    )
    assert {"tokenizer.json", "config.json", "1_Pooling/config.json"} <= set(embedding)
    spacy_files = verify_model_folder(SPACY_MODEL, bundled_spacy_folder())
    assert {"ner/model", "config.cfg", "tokenizer", "vocab/strings.json"} <= set(spacy_files)
    assert len(spacy_files) == len(recorded_digests()[SPACY_MODEL]["files"])


def _changed_copy(source: Path, target: Path, name: str) -> Path:
    shutil.copytree(source, target)
    with (target / name).open("ab") as handle:
        handle.write(b" ")
    return target


def test_a_changed_tokenizer_file_stops_the_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _changed_copy(bundled_embedding_folder(), tmp_path / "model", "tokenizer.json")
    monkeypatch.setattr(onnx_embedding, "bundled_embedding_folder", lambda: copy)
    with pytest.raises(ModelFilesError, match=r"tokenizer\.json has SHA-256 [0-9a-f]{64}"):
        OnnxEmbedder()


def test_a_missing_weights_file_is_named(tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(bundled_embedding_folder(), copy)
    (copy / "model.safetensors").unlink()
    with pytest.raises(ModelFilesError, match=r"model\.safetensors is missing"):
        verify_model_folder(EMBEDDING_MODEL, copy)


def test_a_changed_spacy_file_stops_the_recogniser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _changed_copy(bundled_spacy_folder(), tmp_path / "pipeline", "ner/model")
    monkeypatch.setattr(ner, "bundled_spacy_folder", lambda: copy)
    with pytest.raises(ModelFilesError, match=r"ner/model has SHA-256"):
        EntityRecognizer()


def test_missing_model_files_say_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_files, "EMBEDDING_FOLDER", "data/models/not-there")
    monkeypatch.setattr(model_files.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelFilesError, match="reinstall Herald from its wheel or source"):
        bundled_embedding_folder()


def test_serve_and_worker_refuse_to_start_on_a_changed_model_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer

    from herald.cli import serve

    copy = _changed_copy(bundled_embedding_folder(), tmp_path / "model", "config.json")
    monkeypatch.setattr(model_files, "bundled_embedding_folder", lambda: copy)
    monkeypatch.setenv("HERALD_HOME", str(tmp_path / "home"))
    with pytest.raises(typer.Exit):
        serve.prepare_runtime()
    with pytest.raises(ModelFilesError, match=r"config\.json has SHA-256"):
        model_files.verify_configured_models(None, "spacy", SPACY_MODEL)
    # The operator's own copies are read as they are.
    model_files.verify_configured_models(str(copy), "spacy", "my_pipeline")
