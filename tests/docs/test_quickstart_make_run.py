"""``make run`` in docs/quickstart.md: its Makefile recipe is the commands the page describes,
the first run says why it waits before installing, and it keeps a ``.env`` it finds."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.docs.quickstart_support import (
    ROOT,
    doc_blocks,
    make_run_recipe,
)

pytestmark = pytest.mark.slow


def test_make_run_is_the_commands_the_quickstart_describes() -> None:
    assert make_run_recipe() == [
        "@grep -qs '^HERALD_HOME=' .env || echo 'HERALD_HOME=$(CURDIR)/.herald' >> .env",
        "$(BIN)/herald db upgrade",
        "$(BIN)/herald demo",
        "$(BIN)/herald serve",
    ]
    assert doc_blocks()["make-run"].strip() == "make run"


def test_the_first_make_run_says_why_it_waits_before_installing(tmp_path: Path) -> None:
    """The first `make run` installs for minutes with `pip -q`: it says so before it starts."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(ROOT / "Makefile", checkout / "Makefile")
    for prerequisite in (
        "pyproject.toml",
        "constraints.txt",
        "clients/python/pyproject.toml",
        "build_backend/herald_build.py",
    ):
        (checkout / prerequisite).parent.mkdir(parents=True, exist_ok=True)
        (checkout / prerequisite).touch()
    planned = subprocess.run(
        ["make", "-n", "run"], cwd=checkout, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    [announce] = [n for n, line in enumerate(planned) if "Installing Herald" in line]
    [install] = [
        n for n, line in enumerate(planned) if "pip install -q -c constraints.txt -e" in line
    ]
    assert announce < install
    assert "first time only" in planned[announce]


def test_make_run_keeps_a_dot_env_it_finds_and_adds_the_data_directory(tmp_path: Path) -> None:
    write_env = make_run_recipe()[0].removeprefix("@").replace("$(CURDIR)", str(tmp_path))
    (tmp_path / ".env").write_text("HERALD_LOG_LEVEL=DEBUG\n")
    for _ in range(2):  # a second run leaves the file as it is
        subprocess.run(["bash", "-c", write_env], cwd=tmp_path, check=True)
    assert (tmp_path / ".env").read_text() == (
        f"HERALD_LOG_LEVEL=DEBUG\nHERALD_HOME={tmp_path}/.herald\n"
    )
