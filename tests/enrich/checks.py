"""Assertions shared by the enrichment tests."""

from __future__ import annotations


def joined_from(text: str, allowed: set[str]) -> bool:
    """True when ``text`` is sentences of ``allowed`` joined by single spaces."""
    reachable = {0}
    for position in range(len(text) + 1):
        if position not in reachable:
            continue
        if position == len(text):
            return True
        for sentence in allowed:
            if text.startswith(sentence, position):
                end = position + len(sentence)
                reachable.add(end + 1 if text[end : end + 1] == " " else end)
    return False
