"""Titles for entries that have none (microblog posts: RSS 2.0 and JSON Feed allow it).

Feed readers show the first sentence of the text instead; Herald does the same and marks the
item (``title_derived``) and reports it, so an operator can tell a made-up title from a real one.
"""

from __future__ import annotations

from herald.enrich.text import split_sentences
from herald.ingest.cleaning import clean_text

__all__ = ["MAX_DERIVED_TITLE", "title_from_text"]

MAX_DERIVED_TITLE = 120


def title_from_text(text: str) -> str:
    """The first sentence of ``text``, cut at a word boundary to ``MAX_DERIVED_TITLE``
    characters (with an ellipsis); ``""`` for a text without words."""
    sentences = split_sentences(text.strip())
    first = clean_text(sentences[0].text) if sentences else ""
    if len(first) <= MAX_DERIVED_TITLE:
        return first
    cut = first[: MAX_DERIVED_TITLE - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return f"{cut}…"
