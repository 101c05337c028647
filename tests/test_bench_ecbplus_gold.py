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
    assert parts("on 117th Street") == ["117th Street"]  # a numbered street's number starts it
    assert parts("his 5th birthday") == []


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


def document(sentences: list[str], markables: str) -> ET.Element:
    """An ECB+ XML document: tokens numbered from 1 across the sentences, then ``markables``."""
    tokens, number = [], 0
    for n, sentence in enumerate(sentences):
        for word in words(sentence):
            number += 1
            tokens.append(f'<token t_id="{number}" sentence="{n}">{word}</token>')
    return ET.fromstring(
        f"<Document>{''.join(tokens)}<Markables>{markables}</Markables><Relations/></Document>"
    )


def test_an_organisation_standing_for_its_people_is_not_scored() -> None:
    root = document(
        ["Analysts said IBM hired Sam Palmisano on Friday ."],
        '<HUMAN_PART_MET m_id="1"><token_anchor t_id="3"/></HUMAN_PART_MET>'
        '<HUMAN_PART_PER m_id="2"><token_anchor t_id="5"/><token_anchor t_id="6"/>'
        "</HUMAN_PART_PER>",
    )
    gold = _gold_doc("1_1ecb", root, {0})
    assert [(e.kind, sorted(e.names)) for e in gold.entities] == [
        ("person", ["palmisano", "sam palmisano"])
    ]
    assert "ibm" in gold.inner  # neither a right nor a wrong organisation


def test_capitals_of_a_headline_or_a_source_address_prove_no_name() -> None:
    root = document(
        [
            "http : / / www . example . com / Woman - Killed - In - Queens",
            "Woman Killed In Queens Hit - And - Run , Driver Charged",
            "Microsoft said a woman died in Queens .",
        ],
        '<HUMAN_PART_PER m_id="1"><token_anchor t_id="18"/></HUMAN_PART_PER>'
        '<LOC_GEO m_id="2"><token_anchor t_id="36"/></LOC_GEO>'
        '<HUMAN_PART_ORG m_id="3"><token_anchor t_id="30"/></HUMAN_PART_ORG>',
    )
    gold = _gold_doc("21_8ecbplus", root, {1, 2})
    assert [(e.kind, sorted(e.names)) for e in gold.entities] == [("place", ["queens"])]
    # "Woman" and a sentence's first word "Microsoft" are neither required nor counted wrong
    assert {"woman", "microsoft"} <= gold.inner
