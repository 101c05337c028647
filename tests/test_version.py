"""The version is defined once (``herald.__version__``, read by the build), shown by
`herald --version` and `/healthz`, and released with a dated changelog section."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

import herald
from herald.cli.main import app

ROOT = Path(__file__).resolve().parents[1]


def test_the_build_reads_the_one_version() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"]
    assert config["project"]["dynamic"] == ["version"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "herald.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", herald.__version__)
    # The installed metadata agrees (a stale install would not).
    assert version("herald") == herald.__version__


def test_the_command_and_the_health_check_show_it(client: TestClient) -> None:
    printed = CliRunner().invoke(app, ["--version"])
    assert printed.exit_code == 0
    assert printed.stdout.strip() == f"herald {herald.__version__}"
    assert client.get("/healthz").json() == {"status": "ok", "version": herald.__version__}


def test_the_changelog_has_a_dated_section_for_it() -> None:
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == "Unreleased"
    assert re.fullmatch(rf"{re.escape(herald.__version__)} - \d{{4}}-\d{{2}}-\d{{2}}", headings[1])
    text = (ROOT / "CHANGELOG.md").read_text()
    section = text.split(f"## {headings[1]}")[1].split("\n## ")[0]
    assert "### Upgrading" in section
