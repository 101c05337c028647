"""The PostgreSQL lexical row of an item: a weighted ``tsvector`` built from Herald's analyzer.

Positions carry the field as the weight (A title, B summary, C key points, D body or
transcript); fields, and the key points within theirs, are separated by a gap so a phrase never
spans two of them (as in Tantivy, where each key point is a value of its own). Terms come from
the same analyzer as the Tantivy index, so both adapters match, count and score the same terms.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from herald.search.analysis import index_terms
from herald.search.documents import IndexedItem
from herald.search.domains import domain_and_parents

FIELD_WEIGHTS: tuple[tuple[str, str], ...] = (
    ("title", "A"),
    ("summary", "B"),
    ("key_points", "C"),
    ("body", "D"),
)
MAX_POSITION = 16383  # PostgreSQL's limit: later terms are all held at it
MAX_POSITIONS_PER_TERM = 255
_FIELD_GAP = 8


def quote_lexeme(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def field_terms(item: IndexedItem) -> dict[str, list[list[str]]]:
    """Each field's texts (one per key point, one otherwise) as terms."""
    return {
        "title": [index_terms(item.title)],
        "summary": [index_terms(item.summary)],
        "key_points": [index_terms(point) for point in item.key_points],
        "body": [index_terms(item.body)],
    }


def tsvector_literal(fields: dict[str, list[list[str]]]) -> str:
    positions: dict[str, list[str]] = defaultdict(list)
    late: set[str] = set()
    position = 1
    for name, weight in FIELD_WEIGHTS:
        for value in fields[name]:
            for term in value:
                slots = positions[term]
                if len(slots) >= MAX_POSITIONS_PER_TERM:
                    pass
                elif position < MAX_POSITION:
                    slots.append(f"{position}{weight}")
                elif term not in late:
                    # Past the last position a term still counts, once, held there: a word late
                    # in a long transcript is found, required and excluded as in Tantivy.
                    late.add(term)
                    slots.append(f"{MAX_POSITION}{weight}")
                position += 1
            position += _FIELD_GAP
    return " ".join(f"{quote_lexeme(t)}:{','.join(p)}" for t, p in positions.items())


def document_row(item: IndexedItem) -> dict[str, Any]:
    fields = field_terms(item)
    lengths = {name: sum(len(value) for value in values) for name, values in fields.items()}
    return {
        "content_id": item.content_id,
        "key": item.key,
        "tsv": tsvector_literal(fields),
        "title_len": lengths["title"],
        "summary_len": lengths["summary"],
        "key_points_len": lengths["key_points"],
        "body_len": lengths["body"],
        "published_at": item.published,
        "media_type": item.media_type,
        "domains": domain_and_parents(item.domain),
        "language": item.language.lower() if item.language else None,
        "entity_ids": list(item.entity_ids),
        "change_seq": item.seq,
    }


def tsquery_any(terms: Sequence[str]) -> str:
    return " | ".join(quote_lexeme(t) for t in terms)


def tsquery_phrase(terms: Sequence[str], weight: str = "") -> str:
    suffix = f":{weight}" if weight else ""
    return " <-> ".join(quote_lexeme(t) + suffix for t in terms)
