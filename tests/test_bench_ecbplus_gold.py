"""The ECB+ evaluation's reading of gold names (bench/entities_ecbplus_eval.py): which words of an
annotated mention are a name, so that the scores count named entities only."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bench.entities_ecbplus_eval import _gold_doc, _title_cased, name_parts


def words(line: str) -> list[str]:
    return line.split()


def parts(text: str, *, titled: bool = False, mid: frozenset[str] = frozenset()) -> list[str]:
    tokens = text.split()
    head, others = name_parts(
        tokens, [i == 0 for i in range(len(tokens))], mid, [titled] * len(tokens)
    )
    return [*head, *others]


def test_the_capitalised_words_of_a_mention_are_its_name() -> None:
    assert parts("polygamist prophet Warren Jeffs") == ["Warren Jeffs"]
    assert parts("the Philadelphia 76ers") == ["Philadelphia 76ers"]


def test_a_hyphen_set_apart_by_the_tokeniser_joins_a_name() -> None:
    assert parts("carrier T - Mobile USA") == ["T-Mobile USA"]
    assert parts("the Hewlett - Packard deal") == ["Hewlett-Packard"]
    assert parts("a run - in with Smith") == ["Smith"]


def test_a_title_cased_line_names_only_words_capitalised_in_the_text() -> None:
    assert _title_cased(words("Woman Killed In Queens Hit - And - Run , Driver Charged"))
    assert _title_cased(words("POLICE HAVE ARRESTED TWO MEN"))
    assert not _title_cased(words("A woman was killed in Queens on Monday"))
    mid = frozenset({"Queens"})
    assert parts("Woman", titled=True, mid=mid) == []
    assert parts("in Queens", titled=True, mid=mid) == ["Queens"]
    assert parts("in Queens") == ["Queens"]  # an ordinary sentence: capitals are names


def test_an_organisation_standing_for_its_people_is_not_scored() -> None:
    sentence = ["Analysts", "said", "IBM", "hired", "Sam", "Palmisano", "on", "Friday", "."]
    tokens = "".join(
        f'<token t_id="{i}" sentence="1" number="{i}">{word}</token>'
        for i, word in enumerate(sentence, start=1)
    )
    root = ET.fromstring(
        f"<Document>{tokens}<Markables>"
        '<HUMAN_PART_MET m_id="1"><token_anchor t_id="3"/></HUMAN_PART_MET>'
        '<HUMAN_PART_PER m_id="2"><token_anchor t_id="5"/><token_anchor t_id="6"/>'
        "</HUMAN_PART_PER></Markables><Relations/></Document>"
    )
    gold = _gold_doc("1_1ecb", root, {1})
    assert [(e.kind, sorted(e.names)) for e in gold.entities] == [
        ("person", ["palmisano", "sam palmisano"])
    ]
    assert "ibm" in gold.inner  # neither a right nor a wrong organisation
