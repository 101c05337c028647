"""Text as Herald stores it: NFC, no control characters, single spaces, paragraphs kept on
request. Runs for every title and body ingested, so each pass is skipped when a cheap test
shows it would change nothing."""

from __future__ import annotations

import re
import unicodedata

_WHITE = r"[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000]"
_WHITE_NOT_SPACE = r"[\t\u00a0\u2000-\u200b\u202f\u205f\u3000]"
# Runs of white space that are not already one plain space (a lone space between two words is
# left as it is rather than replaced by itself).
_SPACES = re.compile(rf" {_WHITE}+|{_WHITE_NOT_SPACE}{_WHITE}*")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# A control character or white space other than a space: one scan tells whether the two
# patterns above have anything to do.
_UNUSUAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\t\u00a0\u2000-\u200b\u202f\u205f\u3000]")
_LINE_EDGES = re.compile(r" \n ?|\n ")  # spaces at a line's edges (runs are single by then)
_BLANK_LINES = re.compile(r"\n{3,}")


def clean_text(value: str, *, keep_newlines: bool = False) -> str:
    """NFC, no control characters, single spaces; paragraphs kept when ``keep_newlines``."""
    text = value if value.isascii() else unicodedata.normalize("NFC", value)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Whole-text passes (not per line), each skipped when a cheaper test shows it would change
    # nothing: bodies are long and this runs for every item.
    unusual = _UNUSUAL.search(text) is not None
    if unusual:
        text = _CONTROL.sub("", text)
    if not keep_newlines:
        text = text.replace("\n", " ")
    if unusual or "  " in text:
        text = _SPACES.sub(" ", text)
    if not keep_newlines:
        return text.strip()
    if " \n" in text or "\n " in text:
        text = _LINE_EDGES.sub("\n", text)
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip()
