"""Text that both databases can store and compare: the one rule, used at every edge.

PostgreSQL refuses NUL (U+0000) in text, and neither database can encode a lone surrogate
(``"\\ud800"`` in JSON decodes to one in Python) as UTF-8: such a string reaching a statement
fails it, and the whole transaction with it. Requests and ingested entries are checked with
:func:`text_problem` before anything is stored; text from elsewhere that Herald only quotes (a
webhook receiver's answer) is made storable with :func:`storable`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from herald.errors import field_path


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored (a NUL character, invalid Unicode), or None if it can."""
    if "\x00" in value:
        return "must not contain NUL (U+0000) characters"
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (it contains a lone surrogate)"
    return None


def storable(value: str) -> str:
    """``value`` with what :func:`text_problem` refuses (NUL, lone surrogates) replaced by
    U+FFFD."""
    if text_problem(value) is None:
        return value
    return "".join("\ufffd" if c == "\x00" or "\ud800" <= c <= "\udfff" else c for c in value)


def printable(value: str) -> str:
    """``value`` with what :func:`text_problem` refuses escaped (``\\ud800``, ``\\x00``), so
    an error message can quote it."""
    escaped = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return escaped.replace("\x00", "\\x00")


def find_unstorable(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first string in a JSON-like value (keys included) that cannot be stored.

    Returns ``(field path, problem)`` with the API's field paths (``search.query``,
    ``dates.2``); the root is ``""``.
    """
    for where, text in _strings(value, path):
        problem = text_problem(text)
        if problem is not None:
            return where, problem
    return None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    # Iterative, so a deeply nested body cannot exhaust the stack.
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, Mapping):
            for key, child in reversed(list(item.items())):
                label = printable(key) if isinstance(key, str) else str(key)
                name = field_path(where, label)
                if isinstance(key, str):
                    yield name, key
                stack.append((name, child))
        elif isinstance(item, list | tuple):
            stack.extend(
                (field_path(where, i), child) for i, child in reversed(list(enumerate(item)))
            )
