"""The word lists and patterns several stages of the entity linker read (the lists themselves
are in ``words.toml``, loaded by :mod:`herald.entities.wordlists`): the last words of places',
organisations' and firms' names, titles and roles, the news agencies' abbreviations of US
states. A list one stage reads alone is kept in that stage's module."""

from __future__ import annotations

import re

from herald.entities import wordlists
from herald.entities.names import alias_key

# A company's words: its trade's ("Airlines") and its legal form ("Inc", "Co").
COMPANY_WORDS = wordlists.words("company_words") | wordlists.words("corporate_suffixes")
# Last words of a firm's name (no person's name ends so: "Gordon Advisors", "Smith Associates").
FIRM_ENDINGS = wordlists.words("firm_endings")
# Last words of organisation and place names: a first name before them does not make a person.
# Those of places ("Syntagma Square"), those of either a place or an organisation ("Tulane
# University", "Preston Crown Court"), and those of organisations ("American Medical Association").
PLACE_ENDINGS = wordlists.words("place_endings")
EITHER_ENDINGS = wordlists.words("either_endings")
# Last words of the names of awards and honours ("MacArthur Fellowship", "Most Valuable Player
# Award"): no person, place or organisation (a known one still links; "Awards", a ceremony, is
# an event: "the 2013 Academy Awards").
HONOUR_ENDINGS = wordlists.words("honour_endings")
ORG_ENDINGS = wordlists.words("org_endings")
NAMING_WORDS = COMPANY_WORDS | FIRM_ENDINGS | PLACE_ENDINGS | EITHER_ENDINGS | ORG_ENDINGS
LEADING = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
ORG_KINDS = frozenset({"organization", "company"})
# A nickname quoted or in brackets inside a name: "Vincent 'The Chin' Gigante" is Vincent
# Gigante, "Kimani (Kiki) Gray" Kimani Gray.
NICKNAME = re.compile(r"(?<=\w) (?:[\"'“‘][^\"'“”‘’]{1,30}[\"'”’]|\([A-Z][^()]{0,29}\)) (?=\w)")
POSSESSIVE = re.compile(r"['’]s?$")
CONNECTING = wordlists.words("connecting_words")
# The news agencies' abbreviations of US states, read only right after a place and a comma
# ("Huntsville, Ala."), where they cannot be a word or a title.
AP_STATES = wordlists.mapping("ap_states")
STATE_BY_KEY = {alias_key(k): state for k, state in AP_STATES.items()}
# Initials may be spaced ("N. Y.", as some texts and tokenisers write them).
AP_STATE = re.compile(
    r",\s+("
    + "|".join(
        re.escape(k).replace(r"\.", r"\. ?") for k in sorted(AP_STATES, key=len, reverse=True)
    )
    + r")\."
)


AREAS = ("region", "country")
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
# Titles written before a surname ("Deputy Ortiz") and those that go with a given name as well
# ("Pope Francis", "King Salman", "Sheikh Hasina").
SURNAME_TITLES = wordlists.words("surname_titles")
TITLES = SURNAME_TITLES | wordlists.words("given_name_titles")
# Letters written after a person's name: honours, degrees, a barrister's rank ("Anthony Russell
# QC", "Regina Benjamin MD").
POST_NOMINALS = wordlists.words("post_nominals")
# How ships' names start (Indian, US, British and Commonwealth navies' and merchant ships').
VESSEL_PREFIXES = wordlists.words("vessel_prefixes")
OPENING_QUOTES = "\"'“‘"


# Words a title-cased headline leaves in lower case ("Man Charged in Fire at Church").
TITLE_CASE_LOWER = wordlists.words("title_case_lower")


NON_SPACE = re.compile(r"\S+")
# How the names of recurring events end (by name key).
EVENT_ENDINGS = wordlists.words("event_endings")
# What people are, written before their names like a title ("Comedian Ellen DeGeneres").
ROLES = wordlists.words("roles")
