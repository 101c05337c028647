"""The text of a URL's path or query in one Unicode normal form, its escapes kept apart.

``café`` may reach Herald as one code point or as ``e`` plus a combining accent, written as is
or percent-escaped in UTF-8; a URL's canonical form (:mod:`herald.ingest.urls`) spells it one
way. Only the characters that UTF-8 escapes (and the letters next to them) spell are
normalised: escapes of ASCII characters (``%2F``) and bytes that are no valid UTF-8 stay as they
are, and nothing composes across them.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from typing import Literal
from urllib.parse import quote

__all__ = ["UNRESERVED", "UNRESERVED_CHARS", "normalise_text"]

UNRESERVED = "-._~"
UNRESERVED_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

_ESCAPES = re.compile(r"(?:%[0-9A-F]{2})+")


def normalise_text(text: str, form: Literal["NFC", "NFD"], *, safe: str) -> str:
    """``text`` (escapes normalised by :func:`_normalise_escapes`) with the characters its
    UTF-8 escapes spell, and the letters around them, in Unicode ``form``, escaped again.

    Escapes of ASCII characters (``%2F``) and bytes that are no valid UTF-8 stay as they are,
    and nothing composes across them; a character whose normal form is a reserved ASCII
    character (U+037E is ``;``) becomes that character's escape, never the delimiter itself.
    """
    if "%" not in text:
        return text  # ASCII only: nothing to normalise
    pieces: list[str] = []  # text to normalise, and escapes kept as they are
    kept: list[bool] = []
    start = 0
    for run in _ESCAPES.finditer(text):
        pieces.append(text[start : run.start()])
        kept.append(False)
        for piece, is_kept in _decoded(bytes.fromhex(run.group().replace("%", "")), form):
            pieces.append(piece)
            kept.append(is_kept)
        start = run.end()
    pieces.append(text[start:])
    kept.append(False)
    out: list[str] = []
    chunk: list[str] = []
    for piece, is_kept in zip(pieces, kept, strict=True):
        if is_kept:
            out.append(_requoted(chunk, form, safe))
            chunk = []
            out.append(piece)
        else:
            chunk.append(piece)
    out.append(_requoted(chunk, form, safe))
    return "".join(out)


def _requoted(chunk: list[str], form: Literal["NFC", "NFD"], safe: str) -> str:
    return quote(unicodedata.normalize(form, "".join(chunk)), safe=safe + UNRESERVED + "%")


def _decoded(data: bytes, form: Literal["NFC", "NFD"]) -> list[tuple[str, bool]]:
    """The escaped bytes ``data`` as (character, False) for each non-ASCII character they
    spell in UTF-8, and (escape, True) for each byte kept escaped."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(data):
        lead = data[i]
        size = (
            2
            if 0xC2 <= lead <= 0xDF
            else 3
            if 0xE0 <= lead <= 0xEF
            else 4
            if 0xF0 <= lead <= 0xF4
            else 0
        )
        char = None
        if size:
            with contextlib.suppress(UnicodeDecodeError):
                char = data[i : i + size].decode("utf-8")
        if char is None or len(char) != 1:
            out.append((f"%{lead:02X}", True))
            i += 1
            continue
        normal = unicodedata.normalize(form, char)
        if len(normal) == 1 and normal.isascii() and normal not in UNRESERVED_CHARS:
            out.append((f"%{ord(normal):02X}", True))
        else:
            out.append((char, False))
        i += size
    return out
