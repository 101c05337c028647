"""Words, shapes, casing modes and windows as the trained recogniser reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from herald.enrich.ner_words import (
    CASING_IDS,
    Mode,
    Shape,
    casing_ids,
    mode,
    shape,
    split_words,
    windows,
)


def _texts(text: str) -> list[str]:
    return [w.text for w in split_words(text)]


def test_words_are_split_as_the_annotated_news_splits_them() -> None:
    assert _texts("Germany's U.S. envoy, Mr. Smith, didn't pay $1,000.50 to O'Neill.") == [
        "Germany", "'s", "U.S.", "envoy", ",", "Mr.", "Smith", ",", "did", "n't", "pay", "$",
        "1,000.50", "to", "O'Neill", ".",
    ]  # fmt: skip
    assert _texts("Coca-Cola Co. (KO) rose") == ["Coca-Cola", "Co.", "(", "KO", ")", "rose"]
    assert _texts("( P. Simmons 4-38 )") == ["(", "P.", "Simmons", "4", "-", "38", ")"]


def test_word_offsets_point_into_the_text() -> None:
    text = "  Apple Inc.\n\nsaid  on Monday "
    for word in split_words(text):
        assert text[word.start : word.end] == word.text
    assert [w.text for w in split_words(text, 2, 12)] == ["Apple", "Inc."]


def test_shapes() -> None:
    assert shape("paris") is Shape.LOWER
    assert shape("Paris") is Shape.CAPITALISED
    assert shape("NATO") is Shape.CAPITALS
    assert shape("U.S.") is Shape.CAPITALS
    assert shape("A") is Shape.SINGLE_CAPITAL
    assert shape("McDonald") is Shape.MIXED
    assert shape("1,000") is Shape.NO_LETTERS


def test_modes_tell_headlines_and_lower_case_text_from_prose() -> None:
    assert mode(_texts("The minister met Angela Merkel in Berlin.")) is Mode.PROSE
    assert mode(_texts("SOCCER - JAPAN GET LUCKY WIN , CHINA IN SURPRISE DEFEAT .")) is (
        Mode.ALL_CAPITALS
    )
    assert mode(_texts("Markets Rally As Central Bank Holds Rates")) is Mode.TITLE_CASE
    assert mode(_texts("so we talked to the folks at google about it")) is Mode.NO_CAPITALS
    assert mode(_texts("USA")) is Mode.PROSE  # too short to say


def test_a_capital_means_something_else_in_a_headline() -> None:
    prose = casing_ids(_texts("Shares of Apple rose sharply today ."))
    headline = casing_ids(_texts("SHARES OF APPLE ROSE SHARPLY TODAY ."))
    assert prose[2] != headline[2]
    assert all(0 < c < CASING_IDS for c in prose + headline)


@given(
    st.lists(st.integers(1, 40), max_size=60),
    st.integers(40, 128),
    st.integers(0, 64),
)
def test_windows_keep_every_unit_once_and_stay_in_size(
    lengths: list[int], max_pieces: int, overlap: int
) -> None:
    found = windows(lengths, max_pieces, overlap)
    kept: list[int] = []
    for first, stop, keep in found:
        assert first <= keep < stop or (first == keep == stop)
        assert stop - first == 1 or sum(lengths[first:stop]) <= max_pieces
        kept += range(keep, stop)
    assert kept == list(range(len(lengths)))


def test_windows_repeat_context_from_the_window_before() -> None:
    found = windows([10] * 10, 40, 20)
    assert found[0] == (0, 4, 0)
    assert found[1] == (2, 6, 4)  # two units (20 pieces) of context, kept from unit 4
