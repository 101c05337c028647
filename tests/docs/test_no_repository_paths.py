"""What users read never points to files they lack: the development team's shared folder, this
machine's paths, or notes of how the code was built. README, CHANGELOG, docs/, the deployment
files and the package's own text (code, console, data READMEs) are read."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READ = ("README.md", "CHANGELOG.md", "docs", "deploy", "src/herald", "clients/python")
SUFFIXES = {".md", ".py", ".html", ".js", ".css", ".toml", ".txt", ".yml", ".yaml", ".service"}
# The team's shared folder and its files, and the machines the code was written on.
FORBIDDEN = re.compile(
    r"\.\./shared|shared/(?:spec|data)\b|API-DECISIONS|STYLE\.md|/work/|/root/|/tmp/diag"
)


def user_facing_files() -> list[Path]:
    files: list[Path] = []
    for name in READ:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES]
    return files


def test_nothing_users_read_names_the_teams_files_or_machines() -> None:
    files = user_facing_files()
    assert len(files) > 100  # the package, docs and README were found
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}"
        for path in files
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if FORBIDDEN.search(line)
    ]
    assert found == []
