"""Source text every supported Python can compile.

Python 3.13 dedents docstrings while compiling, which encodes them as UTF-8: a docstring holding a
lone surrogate (written ``"\\ud800"`` without escaping the backslash) compiles on 3.11 and 3.12 and
is an import error on 3.13. The suite runs on one Python, so this test reads the rule off the
syntax tree for every module of the project.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    path
    for folder in ("src", "tests", "bench", "clients", "deploy", "scripts")
    if (ROOT / folder).is_dir()
    for path in (ROOT / folder).rglob("*.py")
    if "build" not in path.relative_to(ROOT).parts
)

_WITH_DOCSTRING = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _docstrings(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, _WITH_DOCSTRING):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                found.append((getattr(node, "lineno", 1), text))
    return found


def test_the_project_has_sources_to_check() -> None:
    assert any(path.name == "middleware.py" for path in SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_docstrings_encode_as_utf8(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for line, text in _docstrings(tree):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            pytest.fail(f"{path.relative_to(ROOT)}:{line}: docstring cannot be encoded ({error})")


def test_a_lone_surrogate_in_a_docstring_is_caught() -> None:
    tree = ast.parse('def f():\n    """a \\ud800 b"""\n')
    ((_, text),) = _docstrings(tree)
    with pytest.raises(UnicodeEncodeError):
        text.encode("utf-8")
