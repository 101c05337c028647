"""The PostgreSQL lexical scope: filters, candidates and evidence in SQL over the tsvector rows.

Candidates come from ``ts_rank`` over the GIN index. PostgreSQL ranks every row that matches, so
the candidate query uses the query's selective terms (those in under 5% of items, or the rarest
one): common words would make it rank a large part of the collection, and they add little.
The second stage then computes for each candidate the same evidence as the Tantivy adapter,
BM25 included (term frequencies per field from the tsvector weights, field lengths stored beside
it, document frequencies counted with the GIN index and cached), so one relevance model serves
both adapters.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.orm import Session

from herald.search.features import BM25_K1, LexicalEvidence, mask_terms
from herald.search.filters import IndexFilter
from herald.search.lexical import FieldBoosts
from herald.search.pg_documents import FIELD_WEIGHTS, tsquery_any, tsquery_phrase
from herald.search.query_syntax import ParsedQuery, Phrase
from herald.search.scope import Hits, Keys, no_hits

BM25_B = 0.75
SELECTIVE_SHARE = 0.05
MATCH_BUDGET = 50_000  # documents whose rank the lexical top-k computes, at most (about)
_STATS_SECONDS = 60.0
_LARGE_STATS_SECONDS = 600.0
_SMALL_COLLECTION = 20_000  # below this, statistics are recounted whenever the index changed
_LENGTH_COLUMNS = {"title": "title_len", "summary": "summary_len", "key_points": "key_points_len",
                   "body": "body_len"}  # fmt: skip


class CollectionStats:
    """Collection size, average field lengths and term document frequencies, cached.

    A small collection is recounted whenever the index changed. A large one is recounted every
    ten minutes, and the document frequency of a common term comes from the planner statistics
    of the tsvector column (``pg_stats.most_common_elems``, refreshed by ANALYZE): counting the
    items of a common term is what would be slow, and a rare term's count is cheap.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._at = -math.inf
        self._version = -1
        self.num_docs = 0
        self.avg_lengths: dict[str, float] = {}
        self._common: dict[str, float] = {}  # lexeme -> share of items (large collections)
        self._df: OrderedDict[str, int] = OrderedDict()

    def refresh(self, session: Session, version: int) -> None:
        now = time.monotonic()
        age = now - self._at
        if self.num_docs >= _SMALL_COLLECTION:
            if age < _LARGE_STATS_SECONDS:
                return
        elif version == self._version and age < _STATS_SECONDS:
            return
        row = session.execute(
            text(
                "SELECT count(*), avg(title_len), avg(summary_len), avg(key_points_len), "
                "avg(body_len) FROM content_search_documents"
            )
        ).one()
        common: dict[str, float] = {}
        if int(row[0]) >= _SMALL_COLLECTION:
            stats = session.execute(
                text(
                    "SELECT CAST(CAST(most_common_elems AS text) AS text[]), "
                    "most_common_elem_freqs FROM pg_stats "
                    "WHERE tablename = 'content_search_documents' AND attname = 'tsv'"
                )
            ).first()
            if stats is not None and stats[0] is not None:
                common = dict(zip(stats[0], (float(f) for f in stats[1]), strict=False))
        with self._lock:
            self.num_docs = int(row[0])
            self.avg_lengths = {
                name: float(value or 1.0) or 1.0
                for name, value in zip(_LENGTH_COLUMNS, row[1:], strict=True)
            }
            self._common = common
            self._at = now
            self._version = version
            self._df.clear()

    def doc_freqs(self, session: Session, terms: Sequence[str]) -> list[int]:
        out: list[int] = []
        for term in terms:
            with self._lock:
                share = self._common.get(term)
                cached = self._df.get(term)
            if share is not None:
                out.append(int(share * self.num_docs))
                continue
            if cached is not None:
                out.append(cached)
                continue
            df = int(
                session.execute(
                    text(
                        "SELECT count(*) FROM content_search_documents "
                        "WHERE tsv @@ CAST(:q AS tsquery)"
                    ),
                    {"q": tsquery_any([term])},
                ).scalar_one()
            )
            with self._lock:
                self._df[term] = df
                self._df.move_to_end(term)
                while len(self._df) > 50_000:
                    self._df.popitem(last=False)
            out.append(df)
        return out

    def idf(self, session: Session, terms: Sequence[str]) -> np.ndarray:
        n = max(self.num_docs, 1)
        dfs = self.doc_freqs(session, terms)
        return np.array([math.log(1.0 + (n - df + 0.5) / (df + 0.5)) for df in dfs])


def _phrase_query(phrase: Phrase) -> str:
    return tsquery_phrase(phrase.terms)


def selective_terms(
    terms: Sequence[str], dfs: Sequence[int], num_docs: int, *, budget: int = MATCH_BUDGET
) -> list[str]:
    """The terms whose matches the lexical top-k ranks: the rarest first, each found in at most
    ``SELECTIVE_SHARE`` of the documents, until their matches would exceed ``budget`` (always at
    least the rarest term). Rare terms carry most of BM25; the budget bounds the ts_rank work
    on a large collection (at 1M items, a few terms of up to 5% each meant ranking hundreds of
    thousands of rows: p95 0.6 s) and never binds on a small one."""
    limit = SELECTIVE_SHARE * max(num_docs, 1)
    chosen: list[str] = []
    matches = 0
    for df, term in sorted(zip(dfs, terms, strict=True)):
        if chosen and (df > limit or matches + df > budget):
            break
        chosen.append(term)
        matches += df
    return chosen


class PostgresScope:
    """:class:`herald.search.scope.LexicalScope` in one PostgreSQL session."""

    def __init__(
        self,
        session: Session,
        stats: CollectionStats,
        boosts: FieldBoosts,
        parsed: ParsedQuery,
        flt: IndexFilter,
        version: int,
    ) -> None:
        self.session = session
        self.stats = stats
        stats.refresh(session, version)
        self.num_docs = stats.num_docs
        self.boosts = boosts
        self.filter = flt
        self.simple = flt.window_and_media_only and not parsed.required and not parsed.excluded
        self._where, self._params = self._filters(flt, parsed)

    @property
    def constrained(self) -> bool:
        return bool(self._where)

    @staticmethod
    def _filters(flt: IndexFilter, parsed: ParsedQuery) -> tuple[list[str], dict[str, Any]]:
        where: list[str] = []
        params: dict[str, Any] = {}
        if flt.start is not None:
            where.append("d.published_at >= :start")
            params["start"] = flt.start
        if flt.end is not None:
            where.append("d.published_at < :end")
            params["end"] = flt.end
        if flt.media_types is not None:
            where.append("d.media_type = ANY(CAST(:media AS varchar[]))")
            params["media"] = sorted(flt.media_types)
        if flt.include_domains:
            where.append("d.domains && CAST(:inc AS varchar[])")
            params["inc"] = list(flt.include_domains)
        if flt.exclude_domains:
            where.append("NOT (d.domains && CAST(:exc AS varchar[]))")
            params["exc"] = list(flt.exclude_domains)
        if flt.entity_ids:
            where.append("d.entity_ids && CAST(:ents AS varchar[])")
            params["ents"] = list(flt.entity_ids)
        if flt.within_content_ids is not None:
            where.append("d.content_id = ANY(CAST(:within AS varchar[]))")
            params["within"] = sorted(flt.within_content_ids)
        for i, group in enumerate(parsed.required):
            where.append(f"d.tsv @@ CAST(:req{i} AS tsquery)")
            params[f"req{i}"] = " | ".join(f"({_phrase_query(p)})" for p in group)
        for i, phrase in enumerate(parsed.excluded):
            where.append(f"NOT (d.tsv @@ CAST(:exc{i}q AS tsquery))")
            params[f"exc{i}q"] = _phrase_query(phrase)
        return where, params

    def _sql(self, select: str, extra: Sequence[str] = (), tail: str = "") -> str:
        clauses = [*self._where, *extra]
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        return f"SELECT {select} FROM content_search_documents d{where}{tail}"

    def _keys(self, sql: str, params: dict[str, Any]) -> Keys:
        rows = self.session.execute(text(sql), {**self._params, **params}).scalars().all()
        return np.array(rows, dtype=np.int64)

    def top(self, terms: Sequence[str], limit: int) -> Hits:
        if not terms:
            return no_hits()
        dfs = self.stats.doc_freqs(self.session, terms)
        selective = selective_terms(terms, dfs, self.stats.num_docs)
        weights = (
            "{" + ",".join(str(getattr(self.boosts, f)) for f, _ in reversed(FIELD_WEIGHTS)) + "}"
        )
        sql = self._sql(
            f"d.key, ts_rank(CAST('{weights}' AS real[]), d.tsv, CAST(:q AS tsquery), 1) AS r",
            ["d.tsv @@ CAST(:q AS tsquery)"],
            " ORDER BY r DESC, d.key LIMIT :limit",
        )
        rows = self.session.execute(
            text(sql), {**self._params, "q": tsquery_any(selective), "limit": limit}
        ).all()
        keys = np.array([r[0] for r in rows], dtype=np.int64)
        return Hits(keys, np.array([float(r[1]) for r in rows]), len(rows))

    def matches(self, terms: Sequence[str]) -> Hits:
        if not terms:
            return no_hits()
        # Every term, not only the selective ones: an item with a common query term alone can
        # still score above the threshold.
        keys = self._keys(
            self._sql("d.key", ["d.tsv @@ CAST(:q AS tsquery)"]), {"q": tsquery_any(terms)}
        )
        return Hits(keys, np.zeros(len(keys)), len(keys))

    def count(self, cap: int) -> tuple[int, bool]:
        sql = f"SELECT count(*) FROM ({self._sql('1', tail=' LIMIT :cap')}) AS passing"
        found = int(self.session.execute(text(sql), {**self._params, "cap": cap + 1}).scalar_one())
        return found, found <= cap

    def passing(self, limit: int) -> Keys:
        return self._keys(self._sql("d.key", tail=" LIMIT :limit"), {"limit": limit})

    def restrict(self, keys: Keys) -> Keys:
        if len(keys) == 0:
            return keys
        sql = self._sql("d.key", ["d.key = ANY(CAST(:keys AS bigint[]))"])
        return self._keys(sql, {"keys": keys.tolist()})

    def evidence(
        self, terms: Sequence[str], keys: Keys, known: Hits, *, every_match: bool = False
    ) -> LexicalEvidence:
        del known, every_match  # ts_rank candidates carry no BM25: every candidate is scored here
        all_idf = self.stats.idf(self.session, terms)
        masked = mask_terms(list(terms), all_idf)
        index = {t: i for i, t in enumerate(masked)}
        term_idf = dict(zip(terms, all_idf.tolist(), strict=True))
        position = {int(k): i for i, k in enumerate(keys.tolist())}
        bm25 = np.zeros(len(keys))
        term_mask = np.zeros(len(keys), dtype=np.int64)
        title_mask = np.zeros(len(keys), dtype=np.int64)
        rows = self.session.execute(
            text(
                "SELECT d.key, u.lexeme, u.weights, d.title_len, d.summary_len, "
                "d.key_points_len, d.body_len FROM content_search_documents d, unnest(d.tsv) u "
                "WHERE d.key = ANY(CAST(:keys AS bigint[])) "
                "AND u.lexeme = ANY(CAST(:terms AS text[]))"
            ),
            {"keys": keys.tolist(), "terms": list(terms)},
        ).all()
        avg = self.stats.avg_lengths
        for key, lexeme, weights, *lengths in rows:
            row = position[int(key)]
            counts = {w: 0 for _, w in FIELD_WEIGHTS}
            for w in weights:
                counts[str(w)] += 1
            for (name, weight), length in zip(FIELD_WEIGHTS, lengths, strict=True):
                tf = counts[weight]
                if tf == 0:
                    continue
                norm = BM25_K1 * (1 - BM25_B + BM25_B * length / max(avg.get(name, 1.0), 1e-9))
                bm25[row] += (
                    getattr(self.boosts, name) * term_idf[lexeme] * tf * (BM25_K1 + 1) / (tf + norm)
                )
            bit = index.get(lexeme)
            if bit is not None:
                term_mask[row] |= 1 << bit
                if counts["A"]:
                    title_mask[row] |= 1 << bit
        bigrams = list(itertools.pairwise(masked))
        phrase_mask = np.zeros(len(keys), dtype=np.int64)
        if bigrams:
            checks = " + ".join(
                f"(CASE WHEN d.tsv @@ CAST(:p{i} AS tsquery) THEN {1 << i} ELSE 0 END)"
                for i in range(len(bigrams))
            )
            params: dict[str, Any] = {f"p{i}": tsquery_phrase(b) for i, b in enumerate(bigrams)}
            for key, mask in self.session.execute(
                text(
                    f"SELECT d.key, {checks} FROM content_search_documents d "
                    "WHERE d.key = ANY(CAST(:keys AS bigint[]))"
                ),
                {**params, "keys": keys.tolist()},
            ):
                phrase_mask[position[int(key)]] = int(mask)
        boost_sum = sum(b for _, b in self.boosts.items())
        return LexicalEvidence(
            bm25=bm25,
            term_mask=term_mask,
            title_mask=title_mask,
            phrase_mask=phrase_mask,
            idf=np.array([term_idf[t] for t in masked]),
            bigram_count=len(bigrams),
            bm25_bound=float(all_idf.sum() * (BM25_K1 + 1.0) * boost_sum),
        )

    def content_ids(self, keys: Keys) -> dict[int, str]:
        if len(keys) == 0:
            return {}
        rows = self.session.execute(
            text(
                "SELECT key, content_id FROM content_search_documents "
                "WHERE key = ANY(CAST(:keys AS bigint[]))"
            ),
            {"keys": keys.tolist()},
        )
        return {int(k): str(c) for k, c in rows}
