"""The operator docs and deploy/*.env agree with docs/configuration.md (generated from
``herald.config.Settings``, tested elsewhere) on each setting's default and meaning.

Checked wherever a page or an environment file names a setting: a default it states ("default
60", "(default 20 s)", "600 by default", a table's default column) is the setting's default, and
a setting whose description says it is shared by every API process is never described as
counted in each process.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from herald.config import Settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    *(p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "configuration.md"),
    *sorted((ROOT / "deploy").glob("*.env")),
]
UNITS = {"s": 1, "seconds": 1, "minutes": 60, "day": 86_400, "days": 86_400}
UNITS |= {"KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
WORDS = {"one": 1, "two": 2, "three": 3, "five": 5, "ten": 10}
STATED = re.compile(
    r"`(HERALD_[A-Z_]+)`[^.|\n`]{0,60}?(?:"
    r"default:?\s+(?P<after>`[^`]*`|empty|[\w.,~/]+(?:\s(?:s|seconds|minutes|days?|[KMG]iB)\b)?)"
    r"|(?P<before>[\w.,]+(?:\s[KMG]iB)?) by default)"
)
TABLE_ROW = re.compile(r"^\|\s*`(HERALD_[A-Z_]+)`\s*\|\s*`?([^|`]*)`?\s*\|", re.M)
PER_PROCESS = re.compile(r"\b(?:in|per|for) each (?:API )?process\b|twice the limit|\bdoubles?\b")


def documented() -> dict[str, str]:
    """configuration.md's default column, by variable."""
    text = (ROOT / "docs" / "configuration.md").read_text()
    return {name: value.strip() for name, value in TABLE_ROW.findall(text)}


def as_value(text: str) -> float | str:
    """A stated default as a number when it is one ("16,384", "10 MiB", "one day")."""
    text = text.strip().strip("`")
    if text in ("", "empty") or text.startswith("unset"):
        return ""
    parts = text.replace(",", "").split()
    number = WORDS.get(parts[0]) if parts else None
    try:
        value = float(parts[0]) if number is None else float(number)
    except ValueError:
        return text
    return value * UNITS.get(parts[1], 1) if len(parts) > 1 else value


def statements(text: str) -> list[tuple[str, str]]:
    found = [(m[1], m["after"] or m["before"]) for m in STATED.finditer(text)]
    return found + TABLE_ROW.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_stated_defaults_are_the_settings_defaults(page: Path) -> None:
    defaults = documented()
    checked = 0
    for name, stated in statements(page.read_text()):
        if name not in defaults:
            continue  # a variable of the CLI (HERALD_BASE_URL), not a setting
        assert as_value(stated) == as_value(defaults[name]), (
            f"{page.name}: {name} default {stated!r}, configuration.md says {defaults[name]!r}"
        )
        checked += 1
    if page.name in {"operations.md", "README.md"}:
        assert checked, f"{page.name} states no default: the pattern no longer matches it"


def shared_settings() -> set[str]:
    return {
        f"HERALD_{name.upper()}"
        for name, field in Settings.model_fields.items()
        if "shared by every API process" in (field.description or "")
    }


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_shared_settings_are_not_described_per_process(page: Path) -> None:
    shared = shared_settings()
    assert "HERALD_RATE_LIMIT_PER_MINUTE" in shared
    # A paragraph of a page; in an environment file, a variable with the comments above it.
    text = page.read_text()
    if page.suffix == ".env":
        parts = re.findall(r"(?:#[^\n]*\n)*HERALD_[^\n]*", text)
    else:
        parts = re.split(r"\n\s*\n", text)
    for part in parts:
        for name in shared & set(re.findall(r"HERALD_[A-Z_]+", part)):
            wrong = PER_PROCESS.search(part)
            assert wrong is None, f"{page.name}: {name} described as per process: {part!r}"


def test_the_parsers_read_what_the_pages_write() -> None:
    assert as_value("16,384") == 16384
    assert as_value("10 MiB") == 10 * 1024**2
    assert as_value("one day") == 86_400
    assert as_value("`~/.herald`") == "~/.herald"
    text = "(`HERALD_JOB_LEASE_SECONDS`, default 60) and `HERALD_RATE_LIMIT_PER_MINUTE`, 600 "
    text += "by default; with no `HERALD_DATABASE_URL`, under `HERALD_HOME` (default `~/.herald`)"
    assert statements(text) == [
        ("HERALD_JOB_LEASE_SECONDS", "60"),
        ("HERALD_RATE_LIMIT_PER_MINUTE", "600"),
        ("HERALD_HOME", "`~/.herald`"),
    ]
    assert PER_PROCESS.search("counts in each API process: with two a key gets twice the limit")
