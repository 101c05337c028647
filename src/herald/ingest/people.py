"""People named by a source: article authors from bylines and author fields, a podcast's
publisher. One set of rules for every format, so "Staff Writer" or an e-mail address never
becomes a person whichever adapter read it.

Rules (documented in docs/ingestion.md, "Authors and publishers"):

- A byline is split into names at ``;``, ``&``, ``|`` and the word "and" (also ``und``, ``et``,
  ``y``, ``og``, ``och``) and at commas; a leading "By" (``von``, ``par``, ``por``...) is dropped.
- "Last, F." pairs (``Smith, J., Jones, K. L.``) are one person each, written "F. Last"; a whole
  byline that is exactly "Last, First" (two single words) is "First Last".
- RSS writes people as ``email (Name)`` (``managingEditor``, ``author``, ``itunes`` fields); the
  name is kept, as in ``Name <email>``. An e-mail address alone is no name.
- Placeholders are dropped: "Staff", "Staff Writer", "Admin", "Editor", "Newsroom", "<Site>
  Staff", "Unknown" and the like, roles after a name ("Jane Roe, Senior Correspondent") and lone
  agency acronyms ("AP", "AFP"). A spelled-out agency ("The Associated Press") is kept: a
  format that knows its agency (ninjs' copyright holder) drops it itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["person_name", "split_authors", "unique_names"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_EMAIL = r"[^\s@()<>,;]+@[^\s@()<>,;]+\.[^\s@()<>,;]+"
# "email (Name)", "Name <email>", "Name (email)", "<email>": the name, or nothing.
_EMAIL_THEN_NAME = re.compile(rf"{_EMAIL}\s*\(([^()]*)\)")
_NAME_THEN_EMAIL = re.compile(rf"\s*[<(]\s*(?:mailto:)?{_EMAIL}\s*[>)]")
_BARE_EMAIL = re.compile(rf"^(?:mailto:)?{_EMAIL}$")
_BYLINE_PREFIX = re.compile(
    r"^(?:(?:written|words|reporting|text|story)\s+)?(?:by|von|par|por|di|door|av|af)\s*:?\s+",
    re.IGNORECASE,
)
# The word "and" only in lower case: "Y. Chen" is a name, not "and Chen".
_AND = re.compile(r"\s*(?:;|&|\||\b(?:and|und|et|y|og|och)\b)\s*")
_ET_AL = re.compile(r",?\s+et\s+al\b\.?")
# "J.", "K. L.", "J.-P.", or one capital alone; "AP" is an agency, not initials.
_INITIALS = re.compile(r"^(?:(?:[A-ZÀ-ÖØ-Þ]\.(?:\s|-)?){1,3}|[A-ZÀ-ÖØ-Þ])$")
_SUFFIXES = frozenset(["jr", "sr", "ii", "iii", "iv", "phd", "ph.d", "md"])
_SINGLE_WORD = re.compile(r"^[^\W\d_][\w'’-]*$")

_PLACEHOLDERS = frozenset(
    [
        "staff",
        "staff writer",
        "staff writers",
        "staff reporter",
        "staff reporters",
        "admin",
        "administrator",
        "editor",
        "editors",
        "the editors",
        "editorial",
        "editorial staff",
        "editorial team",
        "editorial board",
        "newsroom",
        "news desk",
        "newsdesk",
        "web desk",
        "desk",
        "webmaster",
        "web team",
        "team",
        "unknown",
        "anonymous",
        "author",
        "guest",
        "guest author",
        "guest writer",
        "contributor",
        "contributors",
        "wire",
        "wire services",
        "wire service",
        "redaktion",
        "rédaction",
        "redacción",
        "redazione",
        "redactie",
        "redaksjonen",
        "redaktionen",
    ]
)
# "<Site> Staff", "Metro Desk": a placeholder with a prefix.
_PLACEHOLDER_SUFFIX = re.compile(
    r"\s(?:staff|desk|newsroom|team|redaktion|rédaction)$",
    re.IGNORECASE,
)
# A role after a name and a comma ("Jane Roe, Senior Correspondent"); alone, "A. Writer" may be
# a name, so a role is only recognised after a comma.
_ROLE = re.compile(
    r"^(?:[\w-]+\s+){0,3}(?:correspondent|reporter|editor|writer|columnist|contributor|"
    r"photographer|analyst|producer)s?$",
    re.IGNORECASE,
)


def person_name(value: str | None) -> str | None:
    """One person (or publisher) named by a feed field: ``email (Name)`` -> ``Name``; ``None``
    for an e-mail address alone or a placeholder."""
    if not value:
        return None
    name = _BYLINE_PREFIX.sub("", _without_emails(_tidy(value))).strip(" ,;:.-–—")
    if not name or _is_placeholder(name):
        return None
    return name


def split_authors(byline: str, *, drop: Iterable[str] = ()) -> tuple[str, ...]:
    """The people of a byline ("By Jane Roe and John Doe, Staff Writers", "Smith, J., Jones,
    K."); ``drop`` removes further names such as the copyright holder."""
    dropped = {d.casefold() for d in drop}
    text = _ET_AL.sub("", _BYLINE_PREFIX.sub("", _without_emails(_tidy(byline))))
    names: list[str] = []
    for chunk in _AND.split(text):
        for name in _comma_names(chunk):
            name = _BYLINE_PREFIX.sub("", name).strip(" .-–—:")
            if not name or name.casefold() in dropped or _is_placeholder(name):
                continue
            names.append(name)
    return unique_names(names)


def unique_names(values: Iterable[str]) -> tuple[str, ...]:
    """Names in order, the first spelling of each (case-insensitive) kept."""
    seen: set[str] = set()
    out = []
    for value in values:
        if value and value.casefold() not in seen:
            seen.add(value.casefold())
            out.append(value)
    return tuple(out)


def _comma_names(chunk: str) -> list[str]:
    parts = [p.strip() for p in chunk.split(",")]
    parts = [p for p in parts if p]
    if (
        len(parts) == 2
        and all(_SINGLE_WORD.match(p) and p[0].isupper() for p in parts)
        and not _is_placeholder(parts[1])
    ):
        return [f"{parts[1]} {parts[0]}"]  # "Doe, Jane"
    names = []
    i = 0
    while i < len(parts):
        part = parts[i]
        following = parts[i + 1] if i + 1 < len(parts) else ""
        if i and (part.casefold().rstrip(".") in _SUFFIXES or _ROLE.match(part)):
            i += 1  # "Jane Roe, Jr.", "Jane Roe, Staff Writer": not a person
            continue
        if following and _INITIALS.match(following) and not _INITIALS.match(part):
            names.append(f"{following} {part}")  # "Smith, J." -> "J. Smith"
            i += 2
        else:
            names.append(part)
            i += 1
    return names


def _is_placeholder(name: str) -> bool:
    key = " ".join(name.casefold().split())
    if key in _PLACEHOLDERS or _BARE_EMAIL.match(name):
        return True
    if name.isupper() and len(name) <= 5:
        return True  # a lone agency acronym: "AP", "AFP", "DPA"
    return bool(_PLACEHOLDER_SUFFIX.search(name))


def _without_emails(text: str) -> str:
    text = _EMAIL_THEN_NAME.sub(lambda m: m.group(1), text)
    text = _NAME_THEN_EMAIL.sub("", text)
    return " ".join(w for w in text.split() if not _BARE_EMAIL.match(w.strip(",;")))


def _tidy(value: str) -> str:
    text = value if value.isascii() else unicodedata.normalize("NFC", value)
    return " ".join(_CONTROL.sub(" ", text).split())
