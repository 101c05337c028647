"""The linker's word lists, read from ``herald/data/linker/words.toml``.

The words that say what a name names ("Square" ends a place's name, "Mr" opens a person's,
"said" follows one) are data: each list is a table of that file with a ``purpose`` line and its
``words`` (or a ``mapping``, or ``groups`` of words by key). The linker's stages
(:mod:`herald.entities.linking` and the modules it runs), :mod:`herald.entities.cues`, the name
keys (:mod:`herald.entities.names`, :mod:`herald.entities.kb`) and the dictionary matcher take
their lists from here, patterns built from a list included; ``tests/entities/test_wordlists.py``
checks that lists which exclude each other do not overlap.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Final

WORDS_FILE: Final = "words.toml"


@cache
def tables() -> dict[str, dict[str, object]]:
    """Every list of the file by name, as the file writes it."""
    text = resources.files("herald.data").joinpath(f"linker/{WORDS_FILE}").read_text("utf-8")
    return tomllib.loads(text)


def purpose(name: str) -> str:
    """What the list ``name`` is for."""
    value = tables()[name]["purpose"]
    if not isinstance(value, str):
        raise TypeError(f"{name}: purpose is not a string")
    return value


def sequence(name: str) -> tuple[str, ...]:
    """The words of the list ``name`` in the file's order (for patterns built from them)."""
    value = tables()[name]["words"]
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise TypeError(f"{name}: words is not a list of strings")
    return tuple(value)


@cache
def words(name: str) -> frozenset[str]:
    """The words of the list ``name``."""
    return frozenset(sequence(name))


def mapping(name: str) -> dict[str, str]:
    """The mapping of the list ``name`` (a fresh copy, in the file's order)."""
    value = tables()[name]["mapping"]
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TypeError(f"{name}: mapping is not a table of strings")
    return {str(k): v for k, v in value.items()}


def groups(name: str) -> dict[str, tuple[str, ...]]:
    """The word groups of the list ``name`` by key, each in the file's order."""
    value = tables()[name]["groups"]
    if not isinstance(value, dict):
        raise TypeError(f"{name}: groups is not a table")
    out: dict[str, tuple[str, ...]] = {}
    for key, group in value.items():
        if not isinstance(group, list) or not all(isinstance(w, str) for w in group):
            raise TypeError(f"{name}.{key}: not a list of strings")
        out[str(key)] = tuple(group)
    return out
