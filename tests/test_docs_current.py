"""Docs that must stay true: the generated CLI and configuration references, and the README."""

from __future__ import annotations

from pathlib import Path

from herald.cli.reference import cli_reference, settings_reference
from herald.config import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_is_current() -> None:
    assert (ROOT / "docs" / "cli.md").read_text() == cli_reference(), (
        "docs/cli.md is stale: run `make docs`"
    )


def test_configuration_reference_is_current() -> None:
    assert (ROOT / "docs" / "configuration.md").read_text() == settings_reference(), (
        "docs/configuration.md is stale: run `make docs`"
    )


def test_every_setting_is_explained() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, f"setting {name} has no description"


def test_readme_shows_the_two_commands_and_links_the_references() -> None:
    readme = (ROOT / "README.md").read_text()
    for needle in ("make run", "make test", "docs/configuration.md", "docs/cli.md"):
        assert needle in readme
