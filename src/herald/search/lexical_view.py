"""Every lexical operation of one search, on one point-in-time Tantivy searcher.

Besides top-k BM25, the second stage needs per-candidate evidence (which query terms a document
contains, whether they occur in the title, whether query bigrams occur as phrases). Rather than
loading documents, each is one search restricted to the candidate keys whose clauses carry
constant scores 1, 2, 4, ...: the score of a hit is then the bit mask of the clauses it matched.
A float32 score holds 24 bits exactly, so at most 24 clauses go into one mask.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import tantivy

from herald.search.features import BM25_K1, MASK_BITS, LexicalEvidence, mask_terms
from herald.search.filters import IndexFilter
from herald.search.lexical import TEXT_FIELDS, FieldBoosts, LexicalIndex
from herald.search.query_syntax import ParsedQuery, Phrase
from herald.search.scope import Floats, Hits, Keys, no_hits

_SHOULD = tantivy.Occur.Should
_MUST = tantivy.Occur.Must
_MUST_NOT = tantivy.Occur.MustNot


def _count(result: tantivy.SearchResult) -> int:
    """The match count of a search run with ``count=True`` (missing from tantivy's stubs)."""
    value = getattr(result, "count", None)
    return int(value) if isinstance(value, int) else 0


class LexicalView:
    def __init__(self, index: LexicalIndex, boosts: FieldBoosts) -> None:
        self._searcher = index.searcher()
        self._schema = index.schema
        self._boosts = boosts.items()
        self.num_docs = self._searcher.num_docs

    # -- query construction -------------------------------------------------------------------

    def _term_any_field(self, term: str, *, boosted: bool) -> tantivy.Query:
        clauses = []
        for field, boost in self._boosts:
            if boost <= 0 and boosted:
                continue
            q = tantivy.Query.term_query(self._schema, field, term, index_option="freq")
            clauses.append((_SHOULD, tantivy.Query.boost_query(q, boost) if boosted else q))
        return tantivy.Query.boolean_query(clauses)

    def _phrase_any_field(
        self, phrase: Phrase, fields: Sequence[str] = TEXT_FIELDS
    ) -> tantivy.Query:
        clauses = []
        for field in fields:
            if len(phrase.terms) == 1:
                q = tantivy.Query.term_query(self._schema, field, phrase.terms[0], "basic")
            else:
                q = tantivy.Query.phrase_query(self._schema, field, list(phrase.terms))
            clauses.append((_SHOULD, q))
        return tantivy.Query.boolean_query(clauses)

    def text_query(self, terms: Sequence[str]) -> tantivy.Query:
        """Sum over query terms of the boosted per-field BM25 scores."""
        return tantivy.Query.boolean_query(
            [(_SHOULD, self._term_any_field(t, boosted=True)) for t in terms]
        )

    def constraint_query(self, flt: IndexFilter, parsed: ParsedQuery) -> tantivy.Query | None:
        """Request filters and syntax constraints as one non-scoring query (None: no limits)."""
        schema = self._schema
        must: list[tantivy.Query] = []
        must_not: list[tantivy.Query] = []
        if flt.start is not None or flt.end is not None:
            must.append(
                tantivy.Query.range_query(
                    schema,
                    "published",
                    tantivy.FieldType.Integer,
                    lower_bound=None if flt.start is None else math.ceil(flt.start.timestamp()),
                    upper_bound=None if flt.end is None else math.ceil(flt.end.timestamp()),
                    include_lower=True,
                    include_upper=False,
                )
            )
        if flt.media_types is not None:
            must.append(tantivy.Query.term_set_query(schema, "media_type", sorted(flt.media_types)))
        if flt.include_domains:
            must.append(tantivy.Query.term_set_query(schema, "domain", list(flt.include_domains)))
        if flt.exclude_domains:
            must_not.append(
                tantivy.Query.term_set_query(schema, "domain", list(flt.exclude_domains))
            )
        if flt.entity_ids:
            must.append(tantivy.Query.term_set_query(schema, "entity", list(flt.entity_ids)))
        if flt.within_content_ids is not None:
            ids = sorted(flt.within_content_ids)
            must.append(tantivy.Query.term_set_query(schema, "content_id", ids))
        for group in parsed.required:
            alternatives = [(_SHOULD, self._phrase_any_field(p)) for p in group]
            must.append(tantivy.Query.boolean_query(alternatives))
        must_not.extend(self._phrase_any_field(p) for p in parsed.excluded)
        if not must and not must_not:
            return None
        if not must:
            must.append(tantivy.Query.all_query())
        clauses = [(_MUST, q) for q in must] + [(_MUST_NOT, q) for q in must_not]
        return tantivy.Query.const_score_query(tantivy.Query.boolean_query(clauses), 0.0)

    def keys_query(self, keys: Keys) -> tantivy.Query:
        """Restricts to ``keys``, scoring nothing. A disjunction of term queries: Tantivy's
        term-set query walks the whole term dictionary and costs ten times more here."""
        schema = self._schema
        clauses = [(_SHOULD, tantivy.Query.term_query(schema, "key", k)) for k in keys.tolist()]
        return tantivy.Query.const_score_query(tantivy.Query.boolean_query(clauses), 0.0)

    # -- searches -----------------------------------------------------------------------------

    def _run(self, query: tantivy.Query, limit: int, *, count: bool = False) -> Hits:
        if limit <= 0:
            return no_hits()
        result = self._searcher.search(query, limit, count=count)
        hits = result.hits
        total = _count(result)
        if not hits:
            return Hits(no_hits().keys, no_hits().scores, total)
        values = self._searcher.fast_field_values("key", [address for _, address in hits])
        keys = np.fromiter((v if v is not None else -1 for v in values), np.int64, len(hits))
        scores = np.fromiter((s for s, _ in hits), np.float64, len(hits))
        return Hits(keys, scores, total if count else len(hits))

    def top(self, terms: Sequence[str], constraint: tantivy.Query | None, limit: int) -> Hits:
        """The ``limit`` best BM25 matches that pass ``constraint``. Not counted: counting visits
        every match, while the top ``limit`` alone lets Tantivy skip blocks that cannot reach it
        (block-max WAND), which is most of the work for a long query at a million items."""
        if not terms:
            return no_hits()
        query = self.text_query(terms)
        if constraint is not None:
            query = tantivy.Query.boolean_query([(_MUST, query), (_MUST, constraint)])
        return self._run(query, limit)

    def every(self, terms: Sequence[str], constraint: tantivy.Query | None) -> Hits:
        """Every match passing ``constraint`` with its BM25, in one scoring pass: the collector
        is sized by the items passing ``constraint`` (a cheap count: no text query), which
        bounds the matches, rather than by the collection."""
        if not terms:
            return no_hits()
        query = self.match_query(terms, constraint)
        return self._run(query, max(self.count(constraint), 1))

    def match_query(self, terms: Sequence[str], constraint: tantivy.Query | None) -> tantivy.Query:
        query = self.text_query(terms)
        if constraint is not None:
            query = tantivy.Query.boolean_query([(_MUST, query), (_MUST, constraint)])
        return query

    def count(self, constraint: tantivy.Query | None) -> int:
        if constraint is None:
            return int(self.num_docs)
        return _count(self._searcher.search(constraint, 1, count=True))

    def matching(self, constraint: tantivy.Query | None, limit: int) -> Hits:
        """Up to ``limit`` documents passing ``constraint`` (in index order)."""
        query = constraint if constraint is not None else tantivy.Query.all_query()
        return self._run(query, limit)

    def restrict(self, keys: Keys, constraint: tantivy.Query | None) -> Keys:
        """The subset of ``keys`` that exist and pass ``constraint``."""
        if len(keys) == 0:
            return keys
        query = self.keys_query(keys)
        if constraint is not None:
            query = tantivy.Query.boolean_query([(_MUST, query), (_MUST, constraint)])
        return self._run(query, len(keys)).keys

    def bm25(
        self, terms: Sequence[str], keys: Keys, restriction: tantivy.Query | None = None
    ) -> Floats:
        """BM25 of the text query for each of ``keys`` (0 where no term matches)."""
        if len(keys) == 0:
            return np.zeros(0, dtype=np.float64)
        only = self._restrict(keys, restriction)
        query = tantivy.Query.boolean_query([(_MUST, self.text_query(terms)), (_MUST, only)])
        return self.aligned(self._run(query, len(keys)), keys)

    def _restrict(self, keys: Keys, restriction: tantivy.Query | None) -> tantivy.Query:
        """A clause that selects ``restriction``'s documents (``keys`` without one) and adds
        nothing to the score: a scoring restriction (a text query) would add its BM25 to the
        sums the callers read, turning a bit mask into noise."""
        if restriction is None:
            return self.keys_query(keys)
        return tantivy.Query.const_score_query(restriction, 0.0)

    def masks(
        self,
        clauses: Sequence[tantivy.Query],
        keys: Keys,
        restriction: tantivy.Query | None = None,
    ) -> npt.NDArray[np.int64]:
        """For each key, the bit mask of ``clauses`` (at most 24) that the document matches."""
        if not clauses or len(keys) == 0:
            return np.zeros(len(keys), dtype=np.int64)
        scored = [
            (_SHOULD, tantivy.Query.const_score_query(q, float(1 << i)))
            for i, q in enumerate(clauses[:MASK_BITS])
        ]
        query = tantivy.Query.boolean_query(
            [
                (_MUST, tantivy.Query.boolean_query(scored)),
                (_MUST, self._restrict(keys, restriction)),
            ]
        )
        return np.rint(self.aligned(self._run(query, len(keys)), keys)).astype(np.int64)

    def term_clause(self, term: str, fields: Sequence[str] = TEXT_FIELDS) -> tantivy.Query:
        return self._phrase_any_field(Phrase((term,), term), fields)

    def phrase_clause(
        self, terms: Sequence[str], fields: Sequence[str] = TEXT_FIELDS
    ) -> tantivy.Query:
        return self._phrase_any_field(Phrase(tuple(terms), " ".join(terms)), fields)

    def idf(self, terms: Sequence[str]) -> Floats:
        """BM25 inverse document frequency of each term over the whole document (any field)."""
        n = max(self.num_docs, 1)
        out = np.zeros(len(terms), dtype=np.float64)
        for i, term in enumerate(terms):
            df = max(self._searcher.doc_freq(field, term) for field in TEXT_FIELDS)
            out[i] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return out

    def content_ids(self, keys: Keys) -> dict[int, str]:
        """Content id of each key, read from the stored fields of the matching documents."""
        if len(keys) == 0:
            return {}
        result = self._searcher.search(self.keys_query(keys), len(keys))
        out: dict[int, str] = {}
        for _, address in result.hits:
            doc = self._searcher.doc(address)
            key, cid = doc.get_first("key"), doc.get_first("content_id")
            if isinstance(key, int) and isinstance(cid, str):
                out[key] = cid
        return out

    @staticmethod
    def aligned(hits: Hits, keys: Keys) -> Floats:
        """``hits`` scores placed at the position of their key in ``keys`` (0 elsewhere)."""
        out = np.zeros(len(keys), dtype=np.float64)
        if len(hits.keys) == 0:
            return out
        order = np.argsort(keys)
        pos = np.searchsorted(keys, hits.keys, sorter=order)
        pos = np.clip(pos, 0, len(keys) - 1)
        found = keys[order[pos]] == hits.keys
        out[order[pos[found]]] = hits.scores[found]
        return out


class TantivyScope:
    """:class:`herald.search.scope.LexicalScope` over one Tantivy searcher."""

    def __init__(
        self, index: LexicalIndex, boosts: FieldBoosts, parsed: ParsedQuery, flt: IndexFilter
    ) -> None:
        self.view = LexicalView(index, boosts)
        self.num_docs = self.view.num_docs
        self.filter = flt
        self.simple = flt.window_and_media_only and not parsed.required and not parsed.excluded
        self._constraint = self.view.constraint_query(flt, parsed)
        self._boost_sum = sum(b for _, b in boosts.items())

    @property
    def constrained(self) -> bool:
        return self._constraint is not None

    def top(self, terms: Sequence[str], limit: int) -> Hits:
        return self.view.top(terms, self._constraint, limit)

    def matches(self, terms: Sequence[str]) -> Hits:
        return self.view.every(terms, self._constraint)

    def count(self, cap: int) -> tuple[int, bool]:
        del cap  # counting inside Tantivy is cheap: always exact
        return self.view.count(self._constraint), True

    def passing(self, limit: int) -> Keys:
        return self.view.matching(self._constraint, limit).keys

    def restrict(self, keys: Keys) -> Keys:
        return self.view.restrict(keys, self._constraint)

    def evidence(
        self, terms: Sequence[str], keys: Keys, known: Hits, *, every_match: bool = False
    ) -> LexicalEvidence:
        view = self.view
        all_idf = view.idf(terms)
        masked = mask_terms(list(terms), all_idf)
        term_idf = dict(zip(terms, all_idf.tolist(), strict=True))
        bigrams = list(itertools.pairwise(masked))
        # Only items containing a query term match a mask clause: when ``keys`` hold all of
        # them, the match query restricts as well as a disjunction over thousands of keys.
        restriction = (
            view.match_query(terms, self._constraint) if every_match else view.keys_query(keys)
        )
        # BM25 is known for the lexical candidates (same query, same boosts): only the others
        # are scored here.
        bm25 = self.view.aligned(known, keys)
        missing = ~np.isin(keys, known.keys)
        if missing.any() and not every_match:  # with every match known, the others have none
            bm25[missing] = view.bm25(terms, keys[missing])
        n, low = len(masked), (1 << len(masked)) - 1
        term_clauses = [view.term_clause(t) for t in masked]
        title_clauses = [view.term_clause(t, ("title",)) for t in masked]
        phrase_clauses = [view.phrase_clause(b) for b in bigrams]
        # As few searches as the 24 bits allow: each one walks the candidates' postings again.
        if 2 * n + len(bigrams) <= MASK_BITS:  # every mask from one search (up to 8 terms)
            every = view.masks(term_clauses + title_clauses + phrase_clauses, keys, restriction)
            term_mask, title_mask, phrase_mask = every & low, (every >> n) & low, every >> 2 * n
        elif 2 * n <= MASK_BITS:
            both = view.masks(term_clauses + title_clauses, keys, restriction)
            term_mask, title_mask = both & low, both >> n
            phrase_mask = view.masks(phrase_clauses, keys, restriction)
        else:
            term_mask = view.masks(term_clauses, keys, restriction)
            title_mask = view.masks(title_clauses, keys, restriction)
            phrase_mask = view.masks(phrase_clauses, keys, restriction)
        return LexicalEvidence(
            bm25=bm25,
            term_mask=term_mask,
            title_mask=title_mask,
            phrase_mask=phrase_mask,
            idf=np.array([term_idf[t] for t in masked], dtype=np.float64),
            bigram_count=len(bigrams),
            bm25_bound=float(all_idf.sum() * (BM25_K1 + 1.0) * self._boost_sum),
        )

    def content_ids(self, keys: Keys) -> dict[int, str]:
        return self.view.content_ids(keys)
