"""Sentences, language detection and extractive summaries (no sentence is ever invented)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herald.enrich.summarize import summarize
from herald.enrich.text import content_terms, lead_text, split_sentences
from tests.enrich.checks import joined_from
from tests.enrich.models import language_detector

ARTICLES = json.loads(
    (Path(__file__).parents[1] / "entities" / "fixtures" / "articles.json").read_text()
)


def test_sentences_are_spans_of_the_text() -> None:
    text = (
        "Paris hit by heist\nFour men rammed a store in central Paris, a police source said. "
        "The U.S. Embassy said Mr. Smith left at 5 p.m. on Jan. 3. It cost $2. 6 million. "
        '"We are shocked," he said. John F. Kennedy was there!'
    )
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Paris hit by heist",
        "Four men rammed a store in central Paris, a police source said.",
        "The U.S. Embassy said Mr. Smith left at 5 p.m. on Jan. 3.",
        "It cost $2. 6 million.",
        '"We are shocked," he said.',
        "John F. Kennedy was there!",
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)


@given(st.lists(st.text(alphabet="abcXYZ .!?\n\"'", max_size=40), max_size=8))
def test_every_sentence_is_a_span_of_any_text(parts: list[str]) -> None:
    text = " ".join(parts)
    for sentence in split_sentences(text):
        assert " ".join(text[sentence.start : sentence.end].split()) == sentence.text


def normalised_sentences(text: str) -> set[str]:
    return {s.text for s in split_sentences(text)}


@pytest.mark.parametrize("article", ARTICLES, ids=[a["name"] for a in ARTICLES])
def test_summaries_and_key_points_only_use_sentences_of_the_text(article: dict[str, str]) -> None:
    result = summarize(article["title"], article["body"])
    allowed = normalised_sentences(article["body"])
    assert result.summary
    for text in (result.summary, result.brief, result.detailed):
        assert joined_from(text, allowed)
    assert set(result.key_points) <= allowed
    assert result.brief in allowed
    assert len(result.detailed) >= len(result.summary)
    assert [s["style"] for s in result.summaries()] == ["brief", "detailed"]


def test_a_long_article_gets_three_sentence_summary_and_three_to_five_key_points() -> None:
    article = next(a for a in ARTICLES if a["name"] == "apple_company_macworld")
    result = summarize(article["title"], article["body"])
    assert len(split_sentences(result.summary)) == 3
    assert 3 <= len(result.key_points) <= 5
    assert len(set(result.key_points)) == len(result.key_points)


def test_news_summary_starts_from_the_lead() -> None:
    article = next(a for a in ARTICLES if a["name"] == "paris_city_heist")
    result = summarize(article["title"], article["body"])
    first = split_sentences(article["body"])[0].text
    assert result.brief == first


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([s for a in ARTICLES for s in a["body"].split("\n")]), max_size=12))
def test_summaries_of_any_text_never_invent_a_sentence(lines: list[str]) -> None:
    text = "\n".join(lines)
    result = summarize("", text)
    allowed = normalised_sentences(text)
    assert set(result.key_points) <= allowed
    assert joined_from(result.summary, allowed)
    assert len(result.key_points) <= 5


def test_empty_text_gives_empty_summaries() -> None:
    result = summarize("Title only", "")
    assert result.summary == ""
    assert result.key_points == ()
    assert result.summaries() == []


def test_lead_text_is_the_title_and_the_first_words() -> None:
    body = "One two three four. Five six seven eight. Nine ten."
    assert lead_text("Title", body, 6) == "Title\nOne two three four.\nFive six"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Four men rammed their car into an upmarket jewelry store in central Paris.", "en"),
        ("Quatre hommes ont foncé avec leur voiture dans une bijouterie du centre.", "fr"),
        ("Vier Männer rammten mit ihrem Auto ein Juweliergeschäft in der Innenstadt.", "de"),
        ("Cuatro hombres embistieron con su coche una joyería del centro de la ciudad.", "es"),
    ],
)
def test_language_detection_gives_iso_639_1_codes(text: str, code: str) -> None:
    guess = language_detector().detect(text)
    assert guess.code == code
    assert 0.5 <= guess.confidence <= 1.0


def test_too_little_text_has_no_language() -> None:
    assert language_detector().detect("ok 12").code is None
    assert language_detector().detect("").code is None
    codes = {g.code for g in language_detector().detect_many([a["body"] for a in ARTICLES])}
    assert codes == {"en"}


def test_a_possessive_is_a_term_of_its_word() -> None:
    # "Germany's" and "workers'" count as "Germany" and "workers" (entity context, story
    # terms and summary scoring all read these terms); "it's" is a stop word's.
    terms = content_terms("Germany’s chancellor met the workers' union; it's O'Brien's call.")
    assert terms == ["germany", "chancellor", "met", "worker", "union", "o'brien", "call"]
    assert content_terms("Germany's") == content_terms("Germany")


def test_a_line_of_cited_sources_is_not_a_key_point() -> None:
    """The Wikipedia Current Events Portal ends an entry with its sources in brackets."""
    body = (
        "A 5.2 magnitude earthquake strikes Julian, California, United States. The earthquake, "
        "felt throughout Southern California and Baja California, caused several rockslides on "
        "California State Route 76. (The San Diego Union-Tribune) (La Jornada)\n\n"
        "Disasters and accidents."
    )
    result = summarize("A 5.2 magnitude earthquake strikes Julian", body, language="en")
    assert result.key_points == (
        "A 5.2 magnitude earthquake strikes Julian, California, United States.",
        "The earthquake, felt throughout Southern California and Baja California, caused "
        "several rockslides on California State Route 76.",
    )
    assert "Jornada" not in result.summary + result.detailed
    # A statement that only contains a bracket stays.
    kept = "The council (in a late session) approved the new harbour ferry timetable for winter."
    assert summarize("Ferry", f"{kept} (Harbour Gazette)").key_points == (kept,)
