"""Language tags: the one normaliser every reader of a language uses (feeds, items, JSON Lines,
article pages, detection, enrichment).

Herald stores and compares a language as its primary subtag, lower case, in the two-letter
ISO 639-1 form when there is one: ``en-US``, ``EN_us``, ``en-GB`` -> ``en``; ``zh-Hans-CN`` ->
``zh``; ``deu``/``ger`` -> ``de``. Region, script and variants are dropped: they do not change how
Herald reads a text, and one code per language keeps filters and the entity gate exact.
"""

from __future__ import annotations

import re

__all__ = ["is_language_tag", "normalise_language"]

# BCP 47 shape (RFC 5646), leniently: a 2-3 letter language, then subtags of 1-8 letters or
# digits separated by "-" or "_" (POSIX locales such as "de_DE" are common in feeds). A POSIX
# charset or modifier ("en_US.UTF-8", "ca_ES@valencia") is ignored.
_TAG = re.compile(r"^([a-z]{2,3})((?:[-_][a-z0-9]{1,8})*)$")
_POSIX_SUFFIX = re.compile(r"[.@].*$")

# Three-letter ISO 639-2 (bibliographic and terminology) and ISO 639-3 codes of languages that
# have a two-letter code, for the languages feeds and wires use most.
_THREE_TO_TWO = {
    "ara": "ar",
    "ces": "cs",
    "chi": "zh",
    "cmn": "zh",
    "cze": "cs",
    "dan": "da",
    "deu": "de",
    "dut": "nl",
    "ell": "el",
    "eng": "en",
    "est": "et",
    "fin": "fi",
    "fra": "fr",
    "fre": "fr",
    "ger": "de",
    "gre": "el",
    "heb": "he",
    "hin": "hi",
    "hun": "hu",
    "ind": "id",
    "isl": "is",
    "ice": "is",
    "ita": "it",
    "jpn": "ja",
    "kor": "ko",
    "lav": "lv",
    "lit": "lt",
    "nld": "nl",
    "nno": "nn",
    "nob": "no",
    "nor": "no",
    "pol": "pl",
    "por": "pt",
    "ron": "ro",
    "rum": "ro",
    "rus": "ru",
    "slk": "sk",
    "slo": "sk",
    "slv": "sl",
    "spa": "es",
    "swe": "sv",
    "tur": "tr",
    "ukr": "uk",
    "vie": "vi",
    "yue": "zh",
    "zho": "zh",
}
# Deprecated ISO 639-1 codes still seen in old feeds, and Norwegian Bokmål, which language
# detection reports as "no" (one code per language, whichever way it was found).
_REPLACED = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro", "nb": "no"}
# "undetermined", "multiple", "no linguistic content", "uncoded": no language to store.
_NO_LANGUAGE = frozenset({"und", "mul", "zxx", "mis"})


def is_language_tag(value: str) -> bool:
    """Whether ``value`` has the shape of a language tag (``en``, ``en-US``, ``nb_NO``)."""
    return _TAG.match(_POSIX_SUFFIX.sub("", value.strip()).lower()) is not None


def normalise_language(value: str | None) -> str | None:
    """The language of a tag as Herald stores it (``en-US`` -> ``en``), or ``None`` when the
    value is not a language tag or names no language (``und``, ``zxx``)."""
    if not value:
        return None
    match = _TAG.match(_POSIX_SUFFIX.sub("", value.strip()).lower())
    if match is None:
        return None
    primary = match.group(1)
    if primary in _NO_LANGUAGE:
        return None
    return _REPLACED.get(primary) or _THREE_TO_TWO.get(primary, primary)
