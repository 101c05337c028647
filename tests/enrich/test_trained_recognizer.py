"""Herald's own recogniser, run on real sentences through the shipped model (ONNX, int8)."""

from __future__ import annotations

import json

import pytest

from herald.enrich import ner_model
from herald.enrich.model_files import bundled_recognizer_folder
from herald.enrich.ner import Mention
from herald.enrich.ner_model import TrainedRecognizer
from herald.enrich.ner_words import split_words
from herald.enrich.onnx_graphs import quantize
from herald.enrich.onnx_static import quantized_activations
from herald.ingest.demo import demo_corpus_bytes
from tests.enrich.models import trained_recognizer


def _found(text: str) -> set[tuple[str, str]]:
    mentions = trained_recognizer().recognize([text])[0]
    for m in mentions:
        assert text[m.start : m.end] == m.text
    return {(m.text, m.label) for m in mentions}


def test_people_organisations_and_places_in_prose() -> None:
    found = _found(
        "German Chancellor Olaf Scholz met executives of Siemens and Volkswagen in Munich on "
        "Tuesday, a spokesman for the Federal Ministry of Finance said."
    )
    assert ("Olaf Scholz", "PERSON") in found
    assert ("Siemens", "ORG") in found
    assert ("Volkswagen", "ORG") in found
    assert ("Munich", "GPE") in found
    assert ("Federal Ministry of Finance", "ORG") in found


def test_nationalities_are_kept_for_the_linker() -> None:
    found = _found("French and Italian officials rejected the proposal from Brussels.")
    assert ("French", "NORP") in found
    assert ("Brussels", "GPE") in found


@pytest.mark.parametrize(
    "headline",
    [
        "SIEMENS TO CUT 6,000 JOBS IN GERMANY AS ORDERS FALL",
        "Siemens To Cut 6,000 Jobs In Germany As Orders Fall",
    ],
)
def test_headlines_in_capitals_or_title_case(headline: str) -> None:
    found = _found(headline + "\n\nThe company said on Monday that demand had weakened.")
    names = {text.lower(): label for text, label in found}
    assert names.get("siemens") == "ORG"
    assert names.get("germany") == "GPE"
    assert not {"jobs", "orders fall", "fall"} & names.keys()


def test_a_long_article_is_read_in_overlapping_windows_to_its_end() -> None:
    paragraph = (
        "The central bank kept its main interest rate unchanged on Thursday, saying that "
        "inflation had eased but remained above its target for the coming year. "
    )
    closing = "Analysts at Goldman Sachs expect the first cut in June, said Maria Lopez in London."
    text = "Rates held steady\n\n" + paragraph * 40 + closing
    mentions = trained_recognizer().recognize([text])[0]
    assert {(m.text, m.label) for m in mentions} >= {
        ("Goldman Sachs", "ORG"),
        ("Maria Lopez", "PERSON"),
        ("London", "GPE"),
    }
    assert all(text[m.start : m.end] == m.text for m in mentions)
    assert min(m.start for m in mentions) > len(paragraph) * 39  # nothing invented on the way


def test_results_do_not_depend_on_the_batch() -> None:
    texts = [
        "Apple Inc. said Tim Cook would visit Beijing next week.",
        "Shares of Toyota Motor Corp. fell 3 percent in Tokyo after the earthquake.",
        "The United Nations Security Council met in New York to discuss the crisis in Sudan.",
    ]
    together = trained_recognizer().recognize(texts)
    alone = [trained_recognizer().recognize([t])[0] for t in texts]
    assert together == alone
    assert all(isinstance(m, Mention) for ms in together for m in ms)


def test_remembered_word_pieces_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words are split once and their pieces remembered; a full memory starts again."""
    text = (
        "Shares of Toyota Motor Corp. fell 3 percent in Tokyo, and Apple Inc. said Tim Cook "
        "would visit Beijing next week."
    )
    recognizer = TrainedRecognizer()
    first = recognizer.recognize([text])
    assert recognizer.recognize([text]) == first  # every word remembered now
    monkeypatch.setattr(ner_model, "_PIECE_CACHE_WORDS", 3)
    assert recognizer.recognize([text, text]) == [first[0], first[0]]
    assert len(recognizer._pieces) <= len(split_words(text))
    assert ("Tim Cook", "PERSON") in {(m.text, m.label) for m in first[0]}


def test_lower_case_transcripts_are_read_whole() -> None:
    text = " ".join(["so we were talking about the budget and what it means for people"] * 12)
    text += " and then microsoft announced it would buy the company"
    mentions = trained_recognizer().recognize([text])[0]
    assert all(text[m.start : m.end] == m.text for m in mentions)
    assert not any(m.text in ("budget", "people") for m in mentions)


def test_no_name_runs_from_the_headline_into_the_body() -> None:
    """A headline ending with a name and a body opening with one: two names, never one across
    the blank line between them."""
    text = "Cricket - Somerset beat Kent\n\nSomerset beat Kent by six wickets at Taunton on Friday."
    mentions = trained_recognizer().recognize([text])[0]
    assert all("\n" not in m.text for m in mentions)
    assert [m.text for m in mentions if m.text in ("Somerset", "Kent")] == [
        "Somerset",
        "Kent",
        "Somerset",
        "Kent",
    ]


def test_a_texts_names_do_not_depend_on_the_texts_read_with_it() -> None:
    """Batches mix the windows of many texts; the int8 graph quantises activations with fixed
    scales, so a text's names are its own (with one scale per batch, 10 of these 40 news items
    had other names read together than alone). Read together, in batches of any size, each has
    the names it has alone."""
    rows = [json.loads(line) for line in demo_corpus_bytes().splitlines()]
    texts = [f"{row['title']}\n\n{row['body']}" for row in rows[:40]]
    recognizer = trained_recognizer()
    alone = [recognizer.recognize([t])[0] for t in texts]
    assert recognizer.recognize(texts) == alone
    assert TrainedRecognizer(batch_size=5).recognize(texts[::-1]) == alone[::-1]
    assert sum(len(m) for m in alone) > 200


def test_the_int8_graph_quantises_with_the_recorded_ranges_only() -> None:
    """No activation is quantised per batch: every tensor the dynamic quantiser would quantise
    has a recorded range, and the served graph keeps no DynamicQuantizeLinear."""
    import onnx

    folder = bundled_recognizer_folder()
    dynamic = quantize(ner_model.float_graph(folder), reduce_range=True)
    names = quantized_activations(dynamic)
    layers = json.loads((folder / "recognizer.json").read_text("utf-8"))["layers"]
    assert len(names) == 4 * layers + 1  # per layer 4 inputs of weighted products, + the tags'
    assert set(names) == set(ner_model.activation_ranges(folder))
    fixed = onnx.load_from_string(ner_model._build(folder, "int8"))
    ops = {n.op_type for n in fixed.graph.node}
    assert "DynamicQuantizeLinear" not in ops
    assert {"QuantizeLinear", "MatMulIntegerToFloat"} <= ops
