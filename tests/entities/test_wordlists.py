"""The linker's word lists (``herald/data/linker/words.toml``): each says what it is for, holds
no word twice, and lists that exclude each other do not overlap."""

from __future__ import annotations

import itertools

import pytest

from herald.entities import cues, names, vocabulary, wordlists

NAMES = sorted(wordlists.tables())

# Lists the linker reads as saying different things of the same word in the same place: a word in
# two of them would be a contradiction the code settles only by the order of its checks.
EXCLUSIVE: list[tuple[str, tuple[str, ...]]] = [
    # A name's last word: a place's, either a place's or an organisation's (the text decides),
    # an organisation's or a firm's, an honour's or an event's ("Syntagma Square", "Tulane
    # University", "American Medical Association", "Gordon Advisors", "MacArthur Fellowship").
    ("place_endings", ("either_endings", "org_endings", "firm_endings", "company_words")),
    ("either_endings", ("org_endings", "firm_endings", "company_words")),
    (
        "honour_endings",
        (
            "place_endings",
            "either_endings",
            "org_endings",
            "firm_endings",
            "company_words",
            "event_endings",
        ),
    ),
    ("event_endings", ("place_endings", "either_endings", "firm_endings", "company_words")),
    # Titles before a surname and those that go with a given name too: the linker reads a title
    # as one or the other.
    ("surname_titles", ("given_name_titles",)),
    # The word right before a name votes for one kind: a place, a person or an organisation.
    ("place_before", ("person_before", "org_before")),
    ("person_before", ("org_before",)),
    # The word right after a name: a person's (weakly) or an organisation's, or people who live
    # in the place named ("a Perth man").
    ("person_after", ("org_after",)),
    ("resident_nouns", ("person_after", "speech_after", "org_after")),
    ("speech_after", ("org_after",)),
]


def _members(name: str) -> list[str]:
    table = wordlists.tables()[name]
    if "words" in table:
        return list(wordlists.sequence(name))
    if "mapping" in table:
        return list(wordlists.mapping(name))
    return [w for group in wordlists.groups(name).values() for w in group]


def test_the_file_holds_the_lists_the_linker_reads() -> None:
    assert len(NAMES) >= 40
    assert {"place_endings", "org_endings", "surname_titles", "org_after", "ap_states"} <= set(
        NAMES
    )


@pytest.mark.parametrize("name", NAMES)
def test_each_list_says_what_it_is_for_on_one_line(name: str) -> None:
    purpose = wordlists.purpose(name)
    assert len(purpose.split()) >= 5, name
    assert "\n" not in purpose, name


@pytest.mark.parametrize("name", NAMES)
def test_each_list_is_words_a_mapping_or_groups(name: str) -> None:
    table = wordlists.tables()[name]
    shapes = {"words", "mapping", "groups"} & set(table)
    assert len(shapes) == 1, name
    assert set(table) <= {"purpose", "ordered", *shapes}, name
    assert _members(name), name


@pytest.mark.parametrize("name", NAMES)
def test_no_list_holds_a_word_twice(name: str) -> None:
    if "groups" in wordlists.tables()[name]:
        for key, group in wordlists.groups(name).items():
            assert len(set(group)) == len(group), f"{name}.{key}"
    else:
        members = _members(name)
        repeated = sorted({w for w in members if members.count(w) > 1})
        assert not repeated, f"{name}: {repeated}"


@pytest.mark.parametrize("name", NAMES)
def test_words_are_trimmed_and_lower_case_unless_kept_as_written(name: str) -> None:
    as_written = "as written" in wordlists.purpose(name) or "mapping" in wordlists.tables()[name]
    for word in _members(name):
        assert word, name
        assert word == word.strip(), f"{name}: {word!r}"
        if not as_written:
            assert word == word.lower(), f"{name}: {word!r}"


@pytest.mark.parametrize(
    ("first", "second"),
    [(first, second) for first, others in EXCLUSIVE for second in others],
)
def test_lists_that_exclude_each_other_do_not_overlap(first: str, second: str) -> None:
    both = wordlists.words(first) & wordlists.words(second)
    assert not both, f"{first} and {second} both hold {sorted(both)}"


def test_ordered_lists_keep_the_file_order() -> None:
    for name in NAMES:
        if wordlists.tables()[name].get("ordered"):
            assert list(wordlists.sequence(name)) == wordlists.tables()[name]["words"]


def test_the_linker_reads_its_lists_from_the_file() -> None:
    titles = wordlists.words("surname_titles") | wordlists.words("given_name_titles")
    assert titles == vocabulary.TITLES
    assert wordlists.words("surname_titles") == vocabulary.SURNAME_TITLES
    assert wordlists.words("place_endings") == vocabulary.PLACE_ENDINGS
    assert "square" in vocabulary.NAMING_WORDS
    assert vocabulary.AP_STATES["Mass"] == "Massachusetts"
    assert wordlists.words("org_after") == cues._ORG_AFTER
    assert cues._PLACE_OF.search("the mayor of ") is not None
    assert cues._ROLE_APPOSITION.match(", the prime minister") is not None
    assert set(cues.SPORT_WORDS) == set(wordlists.groups("sport_words"))
    assert wordlists.words("corporate_suffixes") == names.CORPORATE_SUFFIXES
    assert cues._RESIDENT_AFTER.match(" pensioner") is not None
    assert cues._TEAM_MOVE_AFTER.match(" picked  up DeShawn Wynn") is not None
    assert cues._ORG_AFTER_ROLE.search("officials at the ") is not None


def test_the_lists_checked_for_contradictions_exist() -> None:
    """Each list named in EXCLUSIVE is in the file (a renamed list would drop its check)."""
    for first, others in EXCLUSIVE:
        for name in (first, *others):
            assert name in NAMES, name
    assert len(list(itertools.chain.from_iterable(o for _, o in EXCLUSIVE))) >= 15
