"""The recogniser reads only passages that can hold a name, and reports offsets in the full text."""

from __future__ import annotations

from herald.enrich.ner import name_passages
from tests.enrich.models import recognizer


def _passages(text: str) -> list[str]:
    return [text[start:end] for start, end in name_passages(text)]


def test_sentences_without_a_capitalised_word_are_not_read() -> None:
    text = (
        "Apple opened a store in Paris. "
        "It was busy all day. "
        "The queue was long and the staff were tired. "
        "So I think we should go back tomorrow. "
        "Then the iPhone sold out. "
        "Analysts expect more."
    )
    assert _passages(text) == [
        "Apple opened a store in Paris.",  # starts with a word that is no stop word
        # "iPhone" has a capital inside; "Analysts" is no stop word, so it may be a name.
        "Then the iPhone sold out. Analysts expect more.",
    ]


def test_consecutive_sentences_form_one_passage_and_initial_stop_words_do_not_count() -> None:
    text = "The minister met Angela Merkel.\nThey spoke about trade.\nIn Berlin, talks went on."
    assert _passages(text) == ["The minister met Angela Merkel.", "In Berlin, talks went on."]
    assert name_passages("we talked.\nand then we left.") == []
    assert name_passages("") == []
    assert _passages("US troops left.") == ["US troops left."]  # "us" is a stop word, "US" not


def test_mentions_keep_their_offsets_in_the_whole_text() -> None:
    text = (
        "Tim Cook visited Berlin on Monday.\n"
        "it rained and nobody came to the event at all.\n"
        "Later he flew to Tokyo with Satya Nadella."
    )
    (mentions,) = recognizer().recognize([text])
    found = {m.text for m in mentions}
    assert {"Tim Cook", "Berlin", "Tokyo", "Satya Nadella"} <= found
    for mention in mentions:
        assert text[mention.start : mention.end] == mention.text
    tokyo = next(m for m in mentions if m.text == "Tokyo")
    assert tokyo.start == text.index("Tokyo")


def test_reading_the_whole_text_is_still_possible() -> None:
    from herald.enrich.ner import EntityRecognizer

    whole = EntityRecognizer(name_passages_only=False)
    text = "Tim Cook visited Berlin.\nnobody came.\nSatya Nadella flew to Tokyo."
    assert [m.text for m in whole.recognize([text])[0]] == [
        m.text for m in recognizer().recognize([text])[0]
    ]


def test_a_text_that_does_not_mark_case_is_read_whole() -> None:
    # Lower-case speech-to-text output: capitals say nothing there, so nothing is skipped.
    said = "So we talked to tim cook in cupertino about phones. And i think it went well. "
    text = "Episode 12: phones\n" + said * 10
    assert name_passages(text) == [(0, len(text))]
    # The same words with the names capitalised: the sentences without one are skipped.
    cased = text.replace("tim cook in cupertino", "Tim Cook in Cupertino")
    spans = name_passages(cased)
    assert len(spans) == 10  # each sentence naming Tim Cook (the first with the title)
    assert all(cased[a:b].endswith("Tim Cook in Cupertino about phones.") for a, b in spans)
    # Short texts are judged sentence by sentence.
    assert name_passages("we talked.\nand then we left.") == []
