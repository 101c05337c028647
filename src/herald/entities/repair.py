"""Stage 1, mention repair: the recogniser's spans cut or joined to the names they hold.

:func:`repaired` runs the repairs in order. Cut here: spans running across paragraphs or into a
date, and the words a recogniser keeps before or after a name (an article, a title, a
nationality, a score). Joined (:mod:`herald.entities.repair_joins`): names cut at an "and",
names split in two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from herald.enrich.ner import Mention, stop_words
from herald.entities import wordlists
from herald.entities.document import surface_key
from herald.entities.kb import KnowledgeBase
from herald.entities.known import has_given_name
from herald.entities.matcher import with_dictionary_mentions
from herald.entities.names import alias_key, fold
from herald.entities.repair_joins import (
    joined_across_and,
    joined_split_names,
)
from herald.entities.shapes import particle
from herald.entities.vocabulary import LEADING, NON_SPACE, POST_NOMINALS, ROLES, TITLES


def repaired(
    text: str,
    mentions: Sequence[Mention],
    kb: KnowledgeBase,
    dictionary: bool = True,
) -> list[Mention]:
    """The recogniser's mentions of ``text`` repaired, in this order: spans cut at paragraphs
    and without their openers, names cut at an "and" joined, split names joined; and, with
    ``dictionary``, the knowledge base's names the recogniser missed
    (:mod:`herald.entities.matcher`)."""
    mentions = without_openers(within_paragraphs(mentions), kb)
    mentions = joined_across_and(text, mentions)
    mentions = joined_split_names(text, mentions, kb)
    if dictionary:
        mentions = with_dictionary_mentions(text, kb, mentions)
    return mentions


# An office written before what it is of ("Secretary of the", "Minister of").
_OFFICE_OF = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("offices_of")) + r")\s+of"
    r"(?:\s+the)?\s+$",
    re.IGNORECASE,
)


_DATE_WORDS = wordlists.words("date_words")
# Where a name cannot go on: a blank line, a line break after a sentence's end, a colon.
_BREAK = re.compile(r"\n\s*\n|(?<=[.!?])[ \t]*\n\s*|(?<=\w):\s+")


def within_paragraphs(mentions: Sequence[Mention]) -> list[Mention]:
    """Mentions cut at blank lines and at line breaks after a sentence's end: no name runs
    from a title into the text below it ("Jags", a blank line, "Quarterback Peyton Manning"
    read as one organisation) or from one sentence into the next ("Old Tappan, N.J.", a line
    break, "He"); a name wrapped onto the next line stays whole. A headline's colon ends a name
    ("Bettie Page: Life in Pictures"), and a comma or semicolon the recogniser kept at a span's
    end is cut too ("Schenectady," before "New York")."""
    out: list[Mention] = []
    for mention in mentions:
        breaks = [i for b in _BREAK.finditer(mention.text) for i in b.span()]
        if not breaks and not mention.text.endswith((",", ";", " ")):
            out.append(mention)
            continue
        bounds = [0, *breaks, len(mention.text)]
        for begin, end in zip(bounds[::2], bounds[1::2], strict=True):
            piece = mention.text[begin:end]
            part = piece.strip().rstrip(",;").rstrip()
            # a date line caught with a name ("Sep 10", "Sat Nov 12 2011", "Tue Jul") is left
            # out, and so is a common word opening the next sentence ("He")
            words = [w.strip(".,").lower() for w in part.split()]
            dated = all(w.isdigit() or w in _DATE_WORDS for w in words)
            if any(ch.isalpha() for ch in part) and not dated and part.lower() not in stop_words():
                at = mention.start + begin + piece.index(part)
                out.append(Mention(part, mention.label, at, at + len(part), mention.score))
    return out


_PRONOUNS = wordlists.words("pronouns")
# Adjectives written before a known name that are no part of it (unless the whole is known:
# "New York", "New Zealand").
_NEWNESS = wordlists.words("newness")
_SCORE_OR_ORDINAL = re.compile(r"^\d+(?:\s*[-–]\s*\d+|st|nd|rd|th)?[,.;:]?$")
# "U.S.", "U. S.", "U.K.", "US", "UK" after a word of a name (not "U. S. Grant" itself).
_COUNTRY_INSIDE = re.compile(r"(?<=\w)\s+(?:U\.\s?[SK]\.?|US|UK)(?=\s|$)")
# A participle or an adverb made from an adjective opening a sentence ("Having", "Unemployed",
# "Naturally", "Obviously"; not "Gurbanguly").
_PARTICIPLE = re.compile(
    r"^[A-Z](?:[a-z]{2,}ing|[a-z]{3,}ed|[a-z]{2,}(?:al|ful|ous|ive|ent|ant|ate|ing|ed|ib|ab|ar)ly)$"
)
# Ranks written abbreviated after a unit's name, which the recogniser may keep with it.
_RANKS = wordlists.words("ranks")


def without_openers(mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """Mentions without a word the recogniser kept before a name: an article ("the Jays"); a
    nationality before a person ("the American Hasim Rahman", when "Hasim Rahman" is named here
    too or starts with a known first name); a title or a role before a full name ("Quarterback
    Peyton Manning", "Comedian Ellen DeGeneres"), unless the knowledge base knows the whole
    ("Queen Elizabeth II"); "New", "Latest", "Former" or "Historic" before a name the knowledge
    base knows as no place ("New MacBook Air"; not "New England"); a participle or an adverb
    opening a person's name ("Unemployed John Jenkin", "Joining Cooley", "Naturally Scott
    Boras"; not a known first name such as "Sterling" or "Kelly", nor a word known names start
    with, such as "United") or a name the knowledge base knows ("Considering Lionsgate"). Nor
    letters after a person's name ("Judge Anthony Russell QC" is Anthony Russell), nor a
    country's abbreviation after it ("Regina Benjamin U.S. Surgeon"), nor a rank after a unit's
    ("Philadelphia Homicide Capt." is Philadelphia Homicide)."""
    named: set[str] | None = None  # the names of the item, read when a nationality opens one
    out: list[Mention] = []
    for mention in mentions:
        article = LEADING.match(mention.text)
        if article is not None:
            at = article.end()
            mention = Mention(
                mention.text[at:], mention.label, mention.start + at, mention.end, mention.score
            )
        words = list(NON_SPACE.finditer(mention.text))
        pronoun = next((i for i, w in enumerate(words[1:], 1) if w.group() in _PRONOUNS), None)
        if pronoun is not None:
            # A name does not run into the next sentence's pronoun ("Old Tappan, N. J. He").
            mention, words = _first_words(mention, words, pronoun)
        if len(words) < 2:
            out.append(mention)
            continue
        first, cut = words[0].group(), words[1].start()
        rest = mention.text[cut:]
        if len(words) in (3, 4) and kb.lookup_demonym(alias_key(first)):
            if named is None:
                named = {surface_key(m.text) for m in mentions}
            opener = surface_key(rest) in named or has_given_name(rest, kb)
        elif first.lower().strip(".") in TITLES or first.lower() in ROLES:
            opener = has_given_name(rest, kb)
        elif first.lower() in _NEWNESS:
            # "New MacBook Air"; not a place ("New England", which the seed may not know)
            known = kb.lookup(surface_key(rest))
            opener = bool(known) and all(r.entity_kind != "place" for r in known)
        elif _PARTICIPLE.match(first) is None or kb.starts_a_name(alias_key(first)):
            opener = False
        else:
            # before a person's name, or a name the knowledge base knows ("Considering
            # Lionsgate recently absorbed Summit")
            opener = (
                mention.label == "PERSON" and not kb.is_given_name(fold(first))
            ) or kb.is_known_name(surface_key(rest))
        if opener and not kb.is_known_name(surface_key(mention.text)):
            mention = Mention(rest, mention.label, mention.start + cut, mention.end, mention.score)
            words = list(NON_SPACE.finditer(mention.text))
        scored = next(
            (i for i, w in enumerate(words[1:], start=1) if _SCORE_OR_ORDINAL.match(w.group())),
            None,
        )
        if mention.label == "PERSON" and scored is not None:
            # Nor into a score, a record or an ordinal ("Joe Louis 26-1" is Joe Louis, "John S.
            # Pritchard 3rd" John S. Pritchard; a model's number stays: "BlackBerry Q10").
            mention, words = _first_words(mention, words, scored)
        if mention.label == "PERSON" and len(words) >= 3:
            # A person's name does not go on in lower case but by a particle ("Chris Ivory on
            # Injured Reserve" is Chris Ivory; "Ludwig van Beethoven", "Abdel Fattah el-Sisi"
            # and "Valéry Giscard d'Estaing" stay whole).
            prose = next(
                (
                    i
                    for i, w in enumerate(words[2:], start=2)
                    if w.group()[:1].islower() and not particle(w.group())
                ),
                None,
            )
            if prose is not None:
                mention, words = _first_words(mention, words, prose)
        country = _COUNTRY_INSIDE.search(mention.text) if mention.label == "PERSON" else None
        if country is not None:
            # Nor through a country's abbreviation ("Regina Benjamin U.S. Surgeon General").
            before = sum(1 for w in words if w.end() <= country.start())
            mention, words = _first_words(mention, words, before)
        last = words[-1]
        if len(words) >= 3 and (
            (mention.label == "PERSON" and last.group().strip(".,") in POST_NOMINALS)
            # a rank the recogniser kept after a unit ("Philadelphia Homicide Capt. James
            # Clark")
            or (mention.label != "PERSON" and last.group().strip(".,").lower() in _RANKS)
        ):
            mention, words = _first_words(mention, words, len(words) - 1)
        out.append(mention)
    return out


def _first_words(
    mention: Mention, words: list[re.Match[str]], count: int
) -> tuple[Mention, list[re.Match[str]]]:
    """The mention cut to its first ``count`` words (``words`` are its words), and those."""
    end = words[count - 1].end()
    cut = Mention(
        mention.text[:end], mention.label, mention.start, mention.start + end, mention.score
    )
    return cut, words[:count]
