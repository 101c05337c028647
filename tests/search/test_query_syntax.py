from hypothesis import given
from hypothesis import strategies as st

from herald.search.query_syntax import Phrase, parse_query


def test_natural_language_is_ranked_words_without_stop_words() -> None:
    parsed = parse_query("What are the effects of vitamin D on bone density?")
    assert parsed.terms == ("effect", "vitamin", "d", "bone", "densiti")
    assert parsed.required == ()
    assert parsed.excluded == ()
    assert parsed.text == "What are the effects of vitamin D on bone density?"


def test_quoted_phrase_is_required_and_keeps_stop_words_for_positions() -> None:
    parsed = parse_query('"state of the art" batteries')
    assert parsed.required == ((Phrase(("state", "of", "the", "art"), "state of the art"),),)
    assert parsed.terms == ("state", "art", "batteri")


def test_or_makes_quoted_items_alternatives() -> None:
    parsed = parse_query('"climate change" OR "global warming" OR CO2 policy')
    (group,) = parsed.required
    assert [p.text for p in group] == ["climate change", "global warming", "CO2"]
    assert "polici" in parsed.terms


def test_plain_or_changes_nothing_but_is_not_a_term() -> None:
    parsed = parse_query("tesla OR rivian recall")
    assert parsed.terms == ("tesla", "rivian", "recal")
    assert parsed.required == ()


def test_exclusion_of_words_and_phrases() -> None:
    parsed = parse_query('election -"fake news" -rumour')
    assert [p.terms for p in parsed.excluded] == [("fake", "news"), ("rumour",)]
    assert parsed.terms == ("elect",)
    assert parsed.text == "election"


def test_hyphen_inside_a_word_is_not_an_operator() -> None:
    parsed = parse_query("covid-19 vaccines")
    assert parsed.excluded == ()
    assert parsed.terms == ("covid", "19", "vaccin")


def test_malformed_operators_fall_back_to_plain_words() -> None:
    assert parse_query('"unterminated phrase here').terms == ("untermin", "phrase", "here")
    assert parse_query('"unterminated phrase here').required == ()
    dangling = parse_query("OR inflation OR")
    assert dangling.terms == ("inflat",)
    assert parse_query("- - OR OR").is_empty
    assert parse_query('""').is_empty


def test_only_stop_words_still_rank_by_them() -> None:
    assert parse_query("to be or not to be").terms == ("to", "be", "or", "not")


def test_typographic_quotes() -> None:
    parsed = parse_query("“interest rates” europe")
    assert parsed.required[0][0].terms == ("interest", "rate")


@given(st.text(max_size=200))
def test_any_string_parses(query: str) -> None:
    parsed = parse_query(query)
    assert all(p.terms for group in parsed.required for p in group)
    assert all(p.terms for p in parsed.excluded)
    assert len(parsed.terms) == len(set(parsed.terms))
