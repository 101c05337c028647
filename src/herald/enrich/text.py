"""Sentences and terms: the text primitives every enrichment step shares.

Sentences are returned as character spans of the input, so a summary built from them can only
ever contain sentences that are in the input (Herald never invents a sentence).

Languages: English rules are the default (``language=None`` or ``"en"``). Given another language
code, sentence splitting uses that language's abbreviations and, where numbers followed by a
period are ordinals ("in der 18. Minute"), does not end a sentence there; content terms use that
language's stop words. Chinese and Japanese sentences end at 。！？ (no space follows them), and
a CJK character counts as one word (these scripts do not separate words by spaces).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from herald.enrich import text_languages as _lang

# Words after which a period does not end a sentence.
_ABBREVIATIONS = frozenset([
    "mr", "mrs", "ms", "dr", "prof", "sen", "rep", "gov", "gen", "lt", "col", "sgt", "capt", "cmdr",
    "adm", "maj", "st", "jr", "sr", "rev", "hon", "pres", "inc", "corp", "ltd", "co", "bros", "vs",
    "etc", "al", "approx", "dept", "est", "fig", "no", "nos", "vol", "op", "jan", "feb", "mar",
    "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "tues", "wed",
    "thu", "thur", "thurs", "fri", "sat", "sun", "ave", "blvd", "rd", "mt", "ft", "u.s", "u.k",
    "e.g", "i.e", "a.m", "p.m",
])  # fmt: skip

# A candidate boundary: terminal punctuation, optional closing quotes/brackets, then whitespace;
# or a CJK sentence end (。！？, no space after it), which always ends a sentence. Also the
# Arabic question mark, the Urdu full stop, the Devanagari danda and the Burmese and Khmer
# full stops.
_BOUNDARY = re.compile(r"[.!?…؟۔।။។]+[\"'”’“»«)\]]*(?=\s)|[。！？]+[」』”’）)\]]*")
_CJK_ENDS = "。！？"
# What may open a sentence besides a capital or a digit (quotes, brackets, Spanish ¿ ¡).
_OPENERS = "\"'“‘([¿¡„«»"
# Combining marks inside words, which \w does not match: vowel signs of the Indic and Southeast
# Asian scripts (whole blocks: their letters and marks), Arabic and Hebrew vowel points,
# combining accents.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
    "\u06d6-\u06ed\u0900-\u0dff\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff"
)
_WORD = re.compile(f"[^\\W\\d_][\\w{_MARKS}'’-]*|\\d+(?:[.,]\\d+)*", re.UNICODE)
# Han, kana and CJK compatibility ideographs: scripts written without spaces between words.
_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_WORD = re.compile(
    f"[{_CJK}]|[^\\W\\d_{_CJK}](?:[^\\W{_CJK}]|[{_MARKS}'’-])*|\\d+(?:[.,]\\d+)*", re.UNICODE
)
_TERM = re.compile(r"[a-z][a-z'-]{1,}")
_SPACE = re.compile(r"\s+")

STOPWORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "aren't", "as", "at", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "can't", "cannot", "could", "couldn't", "did", "didn't", "do",
    "does", "doesn't", "doing", "don't", "down", "during", "each", "even", "ever", "every", "few",
    "for", "from", "further", "get", "gets", "got", "had", "hadn't", "has", "hasn't", "have",
    "haven't", "having", "he", "he'd", "he'll", "he's", "her", "here", "here's", "hers", "herself",
    "him", "himself", "his", "how", "how's", "however", "i", "i'd", "i'll", "i'm", "i've", "if",
    "in", "into", "is", "isn't", "it", "it's", "its", "itself", "just", "let's", "like", "made",
    "make", "many", "may", "me", "might", "more", "most", "much", "must", "mustn't", "my", "myself",
    "new", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other",
    "ought", "our", "ours", "ourselves", "out", "over", "own", "per", "put", "quite", "rather",
    "really", "said", "same", "say", "says", "see", "seen", "shan't", "she", "she'd", "she'll",
    "she's", "should", "shouldn't", "since", "so", "some", "still", "such", "than", "that",
    "that's", "the", "their", "theirs", "them", "themselves", "then", "there", "there's", "these",
    "they", "they'd", "they'll", "they're", "they've", "thing", "things", "think", "this", "those",
    "though", "through", "thus", "to", "too", "two", "under", "until", "up", "upon", "us", "very",
    "via", "was", "wasn't", "way", "we", "we'd", "we'll", "we're", "we've", "were", "weren't",
    "what", "what's", "when", "when's", "where", "where's", "whether", "which", "while", "who",
    "who's", "whom", "whose", "why", "why's", "will", "with", "within", "without", "won't", "would",
    "wouldn't", "yeah", "yes", "yet", "you", "you'd", "you'll", "you're", "you've", "your", "yours",
    "yourself", "yourselves", "okay", "oh", "um", "uh", "know", "going", "gonna", "kind", "sort",
    "lot", "lots", "right", "well", "actually",
])  # fmt: skip


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence as a span of the text it was split from."""

    start: int
    end: int
    text: str  # text[start:end] with runs of whitespace collapsed

    @property
    def words(self) -> int:
        return len(words(self.text))


@dataclass(frozen=True, slots=True)
class _Rules:
    """How sentences end in one language."""

    abbreviations: frozenset[str]
    ordinals: bool  # "18." is an ordinal number, not a sentence end


@cache
def _rules(language: str | None) -> _Rules:
    if language is None or language == "en":
        return _Rules(_ABBREVIATIONS, ordinals=False)
    # Not the English list: its "mar", "no", "est", "al" are words that end sentences in
    # Spanish, Italian or French.
    own = _lang.ABBREVIATIONS.get(language, frozenset())
    return _Rules(_lang.COMMON_ABBREVIATIONS | own, language in _lang.ORDINAL_LANGUAGES)


def _ends_with_abbreviation(chunk: str, rules: _Rules) -> bool:
    tail = chunk.rstrip(".!?…\"'”’)]").rsplit(None, 1)
    if not tail:
        return False
    word = tail[-1].lower().lstrip("(\"'“‘„«")
    if word in rules.abbreviations:
        return True
    if rules.ordinals and word.isdigit() and len(word) <= 3:
        return True  # "in der 18. Minute", "den 3. oktober"
    # An initial ("John F. Kennedy") or a dotted acronym ("U.S.") is rarely a sentence end.
    return (
        bool(re.fullmatch(r"(?:[^\W\d_]\.)*[^\W\d_]", word)) and len(word) <= 3 and word.isalpha()
    )


def split_sentences(
    text: str, language: str | None = None, *, wrapped_lines: bool = False
) -> list[Sentence]:
    """Split text into sentences. A newline ends a sentence (paragraphs, headlines), except,
    with ``wrapped_lines``, where a line without a sentence end is followed by one starting in
    lower case: a paragraph wrapped mid-sentence (hard-wrapped text, ``<br>`` inside an HTML
    paragraph). ``language`` (a language code) chooses abbreviations and ordinal rules."""
    rules = _rules(language)
    sentences: list[Sentence] = []
    offset = 0
    lines = text.splitlines(keepends=True)
    if wrapped_lines and len(lines) > 1:
        lines = _join_wrapped(lines)
    for line in lines:
        _split_line(line, offset, sentences, rules)
        offset += len(line)
    return sentences


_LINE_ENDS = (".", "!", "?", "…", ":", ";", '"', "”", "’", "»", "。", "！", "？", ")")


def _join_wrapped(lines: list[str]) -> list[str]:
    """Lines of one sentence wrapped mid-way, merged back (offsets are unchanged: the newline
    stays inside the merged line and counts as white space)."""
    out = [lines[0]]
    for line in lines[1:]:
        previous = out[-1].rstrip()
        first = line.lstrip()[:1]
        if previous and first.islower() and not previous.endswith(_LINE_ENDS):
            out[-1] += line
        else:
            out.append(line)
    return out


def _split_line(line: str, offset: int, out: list[Sentence], rules: _Rules) -> None:
    start = 0
    for match in _BOUNDARY.finditer(line):
        end = match.end()
        following = line[end:].lstrip()
        if not following:
            break
        mark = match.group(0)
        if mark[0] not in _CJK_ENDS:
            first = following[0]
            # A capital, a digit, an opening quote or a letter of a script without case.
            if not (
                first.isupper()
                or first.isdigit()
                or first in _OPENERS
                or (first.isalpha() and not first.islower())
            ):
                continue
            if mark.startswith(".") and _ends_with_abbreviation(line[start:end], rules):
                continue
            if first.isdigit() and match.start() > 0 and line[match.start() - 1].isdigit():
                continue  # "$2. 6 million": a decimal broken by a tokeniser, not a sentence end
        _add(line, start, end, offset, out)
        start = end
    _add(line, start, len(line), offset, out)


def _add(line: str, start: int, end: int, offset: int, out: list[Sentence]) -> None:
    raw = line[start:end]
    stripped = raw.strip()
    if not stripped:
        return
    lead = len(raw) - len(raw.lstrip())
    real_start = offset + start + lead
    out.append(Sentence(real_start, real_start + len(stripped), _SPACE.sub(" ", stripped)))


def stem(word: str) -> str:
    """A deliberately light stemmer: plural and common verb endings only (fast, predictable)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            if suffix == "s" and word.endswith("ss"):
                return word
            return word[: -len(suffix)]
    return word


def content_terms(text: str, language: str | None = None) -> list[str]:
    """Lower-cased, stemmed content words (stopwords and one-letter words dropped).

    English (``None`` or ``"en"``): ASCII words, English stop words, a light stemmer. Another
    language: words of any alphabet with that language's stop words; Chinese and Japanese runs
    of Han or katakana give overlapping character pairs (the usual unit of CJK term matching,
    as words are not separated), kana particles are left out. ``None`` with CJK text is read
    the second way.
    """
    if language == "en" or (language is None and _CJK_CHAR.search(text) is None):
        lowered = text.lower().replace("’", "'")
        return [t for t in map(_english_term, _TERM.findall(lowered)) if t]
    return _terms_any_script(text, language)


@lru_cache(maxsize=1 << 16)
def _english_term(word: str) -> str:
    """The term of one lower-cased English word ("germany's" -> "germany"), or "" for a stop
    word or a one-letter word. Cached: a text's words are mostly words seen before."""
    word = word.strip("'-")
    if word.endswith("'s"):
        word = word[:-2]  # a possessive is a term of its word
    if len(word) < 2 or word in STOPWORDS:
        return ""
    return stem(word)


_LETTER_TERM = re.compile(f"[^\\W\\d_{_CJK}](?:[^\\W\\d_{_CJK}]|[{_MARKS}'’-])+")
_IDEOGRAPH_RUN = re.compile("[\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _terms_any_script(text: str, language: str | None) -> list[str]:
    lowered = text.lower()
    stop = _lang.STOPWORDS.get(language or "", frozenset())
    plural_s = language in _lang.PLURAL_S_LANGUAGES
    terms = []
    for raw in _LETTER_TERM.findall(lowered):
        word = raw.strip("'’-")
        if len(word) < 2 or word in stop:
            continue
        if plural_s and len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        terms.append(word)
    for run in _IDEOGRAPH_RUN.findall(text):
        if len(run) == 1:
            terms.append(run)
        else:
            terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return terms


def term_counts(texts: Iterable[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(content_terms(text))
    return counts


def words(text: str) -> list[str]:
    """The words of ``text`` (letters with apostrophes and hyphens, or numbers), in order; each
    Han or kana character is a word of its own."""
    if not text.isascii() and _CJK_CHAR.search(text) is not None:
        return _CJK_WORD.findall(text)
    return _WORD.findall(text)


def word_count(text: str) -> int:
    return len(words(text))


def length_in_words(text: str) -> float:
    """The length of a text for length limits (summaries, key points): its words, with a Han or
    kana character counting as half a word (about two of them make a word)."""
    found = words(text)
    if text.isascii() or _CJK_CHAR.search(text) is None:
        return float(len(found))
    cjk = sum(1 for w in found if len(w) == 1 and _CJK_CHAR.match(w))
    return len(found) - cjk / 2


def lead_text(title: str, body: str, max_words: int) -> str:
    """Title plus the first ``max_words`` words of the body, cut at a sentence end when possible."""
    parts: list[str] = [title.strip()] if title.strip() else []
    budget = max_words
    for sentence in split_sentences(body):
        if budget <= 0:
            break
        words = sentence.text.split()
        if len(words) > budget:
            parts.append(" ".join(words[:budget]))
            break
        parts.append(sentence.text)
        budget -= len(words)
    return "\n".join(parts)
