from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herald.core.ids import stable_id
from herald.entities.jsonl import (
    EntityLineError,
    ImportProblem,
    entity_id_for,
    parse_entity_line,
    parse_entity_lines,
)
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, name_keys, word_positions


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("U.K.", "UK"),
        ("U.S", "US"),  # a sentence's full stop took the acronym's last dot
        ("U. S.", "US"),  # spaced initials, as some texts and tokenisers write them
        ("A. J. Smith", "A.J. Smith"),
        ("J. R. R. Tolkien", "JRR Tolkien"),
        ("D. R. Horton", "D.R. Horton"),
        ("Washington, D.C", "Washington DC"),
        ("Zürich", "Zurich"),
        ("The Hague", "Hague"),
        ("Procter & Gamble", "Procter and Gamble"),
        ("Saint-Denis", "Saint Denis"),
        ("McDonald's", "McDonalds"),
    ],
)
def test_spellings_a_reader_takes_for_one_name_share_a_key(a: str, b: str) -> None:
    assert alias_key(a) == alias_key(b)


def test_one_initial_stays_a_word_of_its_own() -> None:
    assert alias_key("George W. Bush") == "george w bush"
    assert alias_key("George H. W. Bush") == alias_key("George H.W. Bush") == "george hw bush"
    assert alias_key("T. Boone Pickens") == "t boone pickens"
    assert alias_key("A J Smith") == "a j smith"  # letters without dots are words


def test_a_legal_form_suffix_does_not_change_the_company() -> None:
    assert "apple" in name_keys("Apple Inc.")
    assert "deutsche telekom" in name_keys("Deutsche Telekom AG")
    assert name_keys("Inc.") == {"inc"}  # one word always stays


@given(st.text(max_size=40))
def test_alias_key_is_idempotent(text: str) -> None:
    assert alias_key(alias_key(text)) == alias_key(text)


def line(**fields: object) -> str:
    return json.dumps(fields)


def test_a_good_line_parses_with_a_stable_id_from_its_key() -> None:
    record = parse_entity_line(
        line(
            key="isin:US0378331005",
            display_name="  Apple   Inc. ",
            entity_kind="company",
            aliases=["Apple", "apple inc", "AAPL"],
            tags=[{"key": "ticker", "value": "AAPL"}],
        ),
        1,
    )
    assert record.display_name == "Apple Inc."
    assert record.id == entity_id_for("company", "Apple Inc.", "isin:US0378331005")
    assert record.id.startswith("ent_")
    assert record.aliases == ("Apple", "AAPL")  # "apple inc" is the name itself
    assert record.first_tag("ticker") == "AAPL"
    assert record.origin == "import"


def test_without_id_or_key_the_id_comes_from_kind_and_name() -> None:
    a = parse_entity_line(line(display_name="Acme Corp", entity_kind="company"), 1)
    b = parse_entity_line(line(display_name="ACME corp.", entity_kind="company"), 2)
    c = parse_entity_line(line(display_name="Acme Corp", entity_kind="organization"), 3)
    assert a.id == b.id != c.id


def test_an_id_from_a_name_does_not_change_when_name_keys_join_spaced_initials() -> None:
    # the id such a line was given before spaced initials shared a key with joined ones
    before = stable_id("ent", "person:j r r tolkien")
    record = parse_entity_line(line(display_name="J. R. R. Tolkien", entity_kind="person"), 1)
    assert record.id == before
    assert alias_key(record.display_name) == "jrr tolkien"  # found under either spelling


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1]", "JSON object"),
        (line(display_name="X"), "entity_kind"),
        (line(display_name="X", entity_kind="planet"), "entity_kind"),
        (line(display_name="", entity_kind="place"), "display_name"),
        (line(display_name="X", entity_kind="place", aliases="Y"), "aliases"),
        (line(display_name="X", entity_kind="place", tags=[{"key": "a"}]), "tag"),
        (line(display_name="X", entity_kind="place", id="bad"), "id"),
        (line(display_name="X", entity_kind="place", colour="red"), "unknown field"),
    ],
)
def test_bad_lines_are_rejected_with_a_reason(raw: str, message: str) -> None:
    with pytest.raises(EntityLineError, match=message) as info:
        parse_entity_line(raw, 7)
    assert info.value.line == 7


def test_a_file_reports_bad_lines_by_number_and_keeps_the_rest() -> None:
    lines = [
        line(display_name="Oslo", entity_kind="place"),
        "{oops",
        "",
        line(display_name="Bergen", entity_kind="place"),
    ]
    parsed = list(parse_entity_lines(lines))
    assert [p.display_name for p in parsed if isinstance(p, EntityRecord)] == ["Oslo", "Bergen"]
    problems = [p for p in parsed if isinstance(p, ImportProblem)]
    assert [p.line for p in problems] == [2]


def _regex_positions(text: str, word: str, not_after: str, plural: bool) -> list[int]:
    before = rf"(?<![\w{re.escape(not_after)}])" if not_after else r"(?<!\w)"
    pattern = before + re.escape(word) + ("s?" if plural else "") + r"(?!\w)"
    return [m.start() for m in re.finditer(pattern, text)]


@pytest.mark.parametrize(
    ("text", "word", "not_after", "plural", "expected"),
    [
        ("Paris and Paris Hilton; Parisian", "Paris", "", False, [0, 10]),
        ("the apple, apples and Apple.", "apple", "", True, [4, 11]),
        ("U.S. and .us", "us", ".", False, []),
        ("Ünited Zürich, zürichs", "zürich", "", True, [15]),
        ("Kennedy_x Kennedy", "Kennedy", "", False, [10]),
        ("aaa", "aa", "", False, []),
        ("", "x", "", False, []),
    ],
)
def test_word_positions(
    text: str, word: str, not_after: str, plural: bool, expected: list[int]
) -> None:
    assert word_positions(text, word, not_after=not_after, plural=plural) == expected
    assert _regex_positions(text, word, not_after, plural) == expected


def test_word_positions_agree_with_the_regular_expression_on_random_text() -> None:
    rng = random.Random(7)
    alphabet = "ab s.\u00e9_1,"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        word = "".join(rng.choice("ab") for _ in range(rng.randint(1, 3)))
        not_after = rng.choice(("", "."))
        plural = rng.random() < 0.5
        assert word_positions(text, word, not_after=not_after, plural=plural) == (
            _regex_positions(text, word, not_after, plural)
        ), (text, word, not_after, plural)
