from datetime import UTC, datetime

from herald.search.documents import IndexedItem
from herald.search.pg_documents import (
    MAX_POSITION,
    document_row,
    tsquery_any,
    tsquery_phrase,
    tsvector_literal,
)


def test_tsvector_positions_carry_the_field_as_weight() -> None:
    literal = tsvector_literal(
        {
            "title": [["rate", "hike"]],
            "summary": [["rate"]],
            "key_points": [["rate", "up"], ["bank"]],
            "body": [["bank"]],
        }
    )
    # title at 1-2 (A), a gap, summary (B), a gap, each key point (C) and a gap after it, body
    # (D): no phrase spans two fields or two key points
    assert literal == "'rate':1A,11B,20C 'hike':2A 'up':21C 'bank':30C,39D"


def test_document_row_uses_herald_terms_and_parent_domains() -> None:
    item = IndexedItem(
        content_id="cnt_1",
        title="Rates rise",
        body="Café owners worry about rates.",
        key_points=("Owners worry",),
        published=datetime(2026, 11, 1, tzinfo=UTC),
        media_type="news",
        domain="www.news.example.co.uk",
        language="EN",
        entity_ids=("ent_a",),
        seq=7,
    )
    row = document_row(item)
    assert row["domains"] == ["news.example.co.uk", "example.co.uk"]
    assert row["title_len"] == 2
    assert row["body_len"] == 5
    assert row["key_points_len"] == 2
    assert "'cafe':" in row["tsv"]
    assert "'rate':1A," in row["tsv"]
    assert row["language"] == "en"
    assert row["change_seq"] == 7


def test_tsquery_literals_quote_lexemes() -> None:
    assert tsquery_any(["rate", "o'neil"]) == "'rate' | 'o''neil'"
    assert tsquery_phrase(["interest", "rate"]) == "'interest' <-> 'rate'"


def test_terms_past_the_last_position_are_held_there_once() -> None:
    body = ["word"] * (MAX_POSITION + 5) + ["late", "late", "word"]
    literal = tsvector_literal({"title": [], "summary": [], "key_points": [], "body": [body]})
    assert f"'late':{MAX_POSITION}D" in literal.split()
    assert literal.count("16383") == 1  # 'word' already has its 255 positions
