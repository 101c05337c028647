"""Settings from a `.env` file in the current directory: the environment wins over the file,
the file over the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from herald.config import DEFAULT_HOME, Settings


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("HERALD_HOME", "HERALD_PORT", "HERALD_LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_dot_env_beats_defaults_and_the_environment_beats_dot_env(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workdir / ".env").write_text(
        f"HERALD_HOME={workdir}/data\nHERALD_PORT=9001\nOTHER_TOOL_SETTING=ignored\n"
    )
    settings = Settings()
    assert settings.home == workdir / "data"
    assert settings.port == 9001
    assert settings.log_level == "INFO"  # neither sets it: the default
    monkeypatch.setenv("HERALD_PORT", "9002")
    assert Settings().port == 9002
    assert Settings().home == workdir / "data"


def test_without_dot_env_the_defaults_apply(workdir: Path) -> None:
    assert not (workdir / ".env").exists()
    assert Settings().home == DEFAULT_HOME
    assert Settings().port == 8080


def test_a_bad_value_in_dot_env_is_refused_like_one_in_the_environment(workdir: Path) -> None:
    (workdir / ".env").write_text("HERALD_PORT=not-a-port\n")
    with pytest.raises(ValueError, match="port"):
        Settings()
