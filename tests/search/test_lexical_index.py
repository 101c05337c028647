from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from herald.search.documents import content_key
from herald.search.filters import IndexFilter
from herald.search.lexical import FieldBoosts, LexicalIndex
from herald.search.lexical_view import LexicalView
from herald.search.query_syntax import parse_query

from .factories import DAY0, item

CORPUS = [
    item("cnt_a", "Central bank raises interest rates", "Inflation pushed the central bank to act.",
         day=0, domain="news.example.com", entity_ids=("ent_ecb",)),
    item("cnt_b", "Storm floods the coast", "Heavy rain and wind hit coastal towns.",
         day=1, media_type="wire", domain="wire.org"),
    item("cnt_c", "Interest in electric cars grows", "Sales of electric vehicles rose sharply.",
         day=2, media_type="podcast", domain="example.com", entity_ids=("ent_tesla", "ent_ecb")),
    item("cnt_d", "Rates on hold", "The bank kept interest rates unchanged; no change to policy.",
         day=3, domain="other.net", summary="State of the art monetary policy."),
]  # fmt: skip


def ids(view: LexicalView, query: str, flt: IndexFilter | None = None) -> list[str]:
    parsed = parse_query(query)
    constraint = view.constraint_query(flt or IndexFilter(), parsed)
    hits = view.top(list(parsed.terms), constraint, 10)
    names = view.content_ids(hits.keys)
    return [names[k] for k in hits.keys.tolist()]


@pytest.fixture
def index() -> LexicalIndex:
    idx = LexicalIndex(None)
    with idx.writer() as w:
        w.upsert(CORPUS)
    return idx


def view_of(index: LexicalIndex) -> LexicalView:
    return LexicalView(index, FieldBoosts())


def test_bm25_finds_stemmed_words_in_every_text_field(index: LexicalIndex) -> None:
    view = view_of(index)
    assert ids(view, "interest rate")[:2] == ["cnt_d", "cnt_a"] or set(
        ids(view, "interest rate")[:2]
    ) == {"cnt_a", "cnt_d"}
    assert ids(view, "flooding storms") == ["cnt_b"]
    assert ids(view, "monetary") == ["cnt_d"]  # summary field


def test_date_window_is_start_inclusive_end_exclusive(index: LexicalIndex) -> None:
    flt = IndexFilter(start=DAY0 + timedelta(days=1), end=DAY0 + timedelta(days=3))
    assert sorted(ids(view_of(index), "interest rates storm", flt)) == ["cnt_b", "cnt_c"]


def test_media_type_entity_and_within_filters(index: LexicalIndex) -> None:
    view = view_of(index)
    assert ids(view, "interest", IndexFilter(media_types=frozenset({"podcast"}))) == ["cnt_c"]
    assert sorted(ids(view, "interest", IndexFilter(entity_ids=("ent_ecb",)))) == ["cnt_a", "cnt_c"]
    assert ids(view, "interest", IndexFilter(within_content_ids=frozenset({"cnt_d"}))) == ["cnt_d"]


def test_domain_filter_includes_subdomains_and_ignores_www(index: LexicalIndex) -> None:
    view = view_of(index)
    assert sorted(ids(view, "interest", IndexFilter(include_domains=("example.com",)))) == [
        "cnt_a",
        "cnt_c",
    ]
    assert ids(view, "interest", IndexFilter(include_domains=("news.example.com",))) == ["cnt_a"]
    assert ids(view, "interest", IndexFilter(include_domains=("www.other.net",))) == ["cnt_d"]
    assert sorted(ids(view, "interest", IndexFilter(exclude_domains=("example.com",)))) == ["cnt_d"]


def test_phrase_exclusion_and_or_syntax(index: LexicalIndex) -> None:
    view = view_of(index)
    assert ids(view, '"interest rates"') == ["cnt_d", "cnt_a"] or sorted(
        ids(view, '"interest rates"')
    ) == ["cnt_a", "cnt_d"]
    assert ids(view, '"state of the art"') == ["cnt_d"]
    assert sorted(ids(view, "interest -electric")) == ["cnt_a", "cnt_d"]
    assert sorted(ids(view, '"electric cars" OR storm')) == ["cnt_b", "cnt_c"]


def test_update_replaces_and_delete_removes(index: LexicalIndex) -> None:
    with index.writer() as w:
        w.upsert([item("cnt_b", "Heatwave breaks records", day=1)])
        w.delete(["cnt_c"])
    view = view_of(index)
    assert ids(view, "storm") == []
    assert ids(view, "heatwave") == ["cnt_b"]
    assert ids(view, "electric") == []
    assert view.num_docs == 3


def test_restrict_bm25_and_masks_are_aligned_with_the_keys(index: LexicalIndex) -> None:
    view = view_of(index)
    keys = np.array(sorted(content_key(c) for c in ("cnt_a", "cnt_b", "cnt_d")), dtype=np.int64)
    constraint = view.constraint_query(
        IndexFilter(media_types=frozenset({"news"})), parse_query("x")
    )
    assert set(view.restrict(keys, constraint).tolist()) == {
        content_key("cnt_a"),
        content_key("cnt_d"),
    }
    scores = view.bm25(["storm"], keys)
    assert scores[keys.tolist().index(content_key("cnt_b"))] > 0
    assert np.count_nonzero(scores) == 1
    masks = view.masks(
        [view.term_clause("interest"), view.term_clause("bank"), view.term_clause("storm")], keys
    )
    by_id = dict(zip(keys.tolist(), masks.tolist(), strict=True))
    assert by_id[content_key("cnt_a")] == 0b011
    assert by_id[content_key("cnt_b")] == 0b100
    assert by_id[content_key("cnt_d")] == 0b011


def test_index_survives_reopening(tmp_path: Path) -> None:
    first = LexicalIndex(tmp_path / "lexical")
    with first.writer() as w:
        w.upsert(CORPUS)
    del first
    reopened = LexicalIndex(tmp_path / "lexical")
    assert ids(view_of(reopened), "storm") == ["cnt_b"]
    with reopened.writer() as w:  # the lock was released by the first writer
        w.delete(["cnt_b"])
    assert ids(view_of(reopened), "storm") == []
