"""The user-facing pages name no placeholder repository or owner: installing follows commands
that work as written (docs/deployment.md installs from the source in hand)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted(p for p in (ROOT / "deploy").rglob("*") if p.is_file()),
]
PLACEHOLDER = re.compile(r"github\.com/OWNER|\bOWNER/|YOUR[-_]ORG|<(?:org|owner|user)>", re.I)


def test_no_page_names_a_placeholder_repository() -> None:
    found = [
        f"{page.relative_to(ROOT)}: {match[0]}"
        for page in PAGES
        for match in PLACEHOLDER.finditer(page.read_text(errors="replace"))
    ]
    assert found == []
    assert PLACEHOLDER.search("git clone https://github.com/OWNER/herald /opt/herald")
