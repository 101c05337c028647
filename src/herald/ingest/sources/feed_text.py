"""Reading a feed's bytes and texts as their producer meant them.

Which charset decodes a feed (its own declaration, else the server's), and whether a title or
summary is HTML or plain text (feedparser's ``*_detail`` type).
"""

from __future__ import annotations

import codecs
import re
from html.entities import entitydefs
from typing import Any

from herald.ingest.articles import html_to_text
from herald.ingest.cleaning import clean_text
from herald.ingest.http_headers import charset_of

__all__ = ["as_text", "detail_text", "header_charset"]

_XML_ENCODING = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)


def header_charset(content: bytes, content_type: str | None) -> str | None:
    """The server's charset when it must decode ``content`` (see :func:`..feeds.parse_feed`),
    else ``None``."""
    charset = charset_of(content_type)
    if not charset or content.startswith(_BOMS):
        return None
    declared = _XML_ENCODING.match(content[:512])
    if declared and declared.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return None
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return None
    try:
        content.decode(charset)
    except (LookupError, UnicodeDecodeError):
        return None
    return charset


def detail_text(entry: Any, key: str) -> str:
    """The text of an entry's ``title`` or ``summary``: HTML read as a browser shows it, plain
    text (Atom ``type="text"``, an RSS title without markup) kept as written, so ``x < y`` or
    ``the <dialog> element`` lose no words; plain text with closing tags or entities is taken
    for HTML."""
    detail = entry.get(f"{key}_detail") or {}
    return as_text(str(entry.get(key) or ""), detail.get("type"))


def as_text(value: str, content_type: object) -> str:
    if content_type == "text/plain" and not _looks_like_html(value):
        return clean_text(value, keep_newlines=True)
    return html_to_text(value)


_CLOSING_TAG = re.compile(r"</[A-Za-z][A-Za-z0-9]*\s*>")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _looks_like_html(value: str) -> bool:
    """Plain text that is HTML after all (Atom producers that escape HTML but leave out
    ``type="html"``): a closing tag or a character reference, as feedparser tests RSS text."""
    if _CLOSING_TAG.search(value):
        return True
    return any(ref.startswith("#") or ref in entitydefs for ref in _ENTITY.findall(value))
