"""The PostgreSQL search adapter: lexical retrieval inside the database, dense per process.

The lexical projection (``content_search_documents``, tsvector + GIN) lives in the same database
as the content, so every API process on every machine shares it; its watermark is the
``search_projections`` row named ``postgresql``. There is no pgvector here: embeddings stay in
``content_embeddings`` and each process keeps a usearch graph synced from them (as the embedded
adapter does), while filters on dense candidates run in SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.orm import Session

from herald.db.session import SessionFactory
from herald.search.adapter import HybridAdapter
from herald.search.dense import DenseSide
from herald.search.embedding import CachedQueryEncoder
from herald.search.feed import Change
from herald.search.filters import IndexFilter
from herald.search.hybrid import RetrievalSettings
from herald.search.pg_documents import document_row
from herald.search.pg_lexical import CollectionStats, PostgresScope
from herald.search.projection import ProjectionSync
from herald.search.query_syntax import ParsedQuery
from herald.search.rerank import RelevanceModel
from herald.search.scope import LexicalScope

PROJECTION = "postgresql"
ANALYZE_AFTER = 10_000  # items applied in one catch-up (a rebuild, a big import)

_UPSERT = text(
    """
    INSERT INTO content_search_documents (content_id, key, tsv, title_len, summary_len,
        key_points_len, body_len, published_at, media_type, domains, language, entity_ids,
        change_seq)
    VALUES (:content_id, :key, CAST(:tsv AS tsvector), :title_len, :summary_len, :key_points_len,
        :body_len, :published_at, :media_type, CAST(:domains AS varchar[]), :language,
        CAST(:entity_ids AS varchar[]), :change_seq)
    ON CONFLICT (content_id) DO UPDATE SET key = excluded.key, tsv = excluded.tsv,
        title_len = excluded.title_len, summary_len = excluded.summary_len,
        key_points_len = excluded.key_points_len, body_len = excluded.body_len,
        published_at = excluded.published_at, media_type = excluded.media_type,
        domains = excluded.domains, language = excluded.language,
        entity_ids = excluded.entity_ids, change_seq = excluded.change_seq
    WHERE content_search_documents.change_seq <= excluded.change_seq
    """
)


class PostgresProjection:
    """``content_search_documents``, shared by every process using the database."""

    name = PROJECTION

    def __init__(self, sessions: SessionFactory) -> None:
        self.sessions = sessions
        self._applied = 0
        self._database: str | None = None

    def applied_seq(self) -> int:
        return self._applied

    def refresh(self) -> None:
        with self.sessions.read() as session:
            self._applied = _read_watermark(session)

    def known_seqs(self, keys: Sequence[int]) -> dict[int, int]:
        if not keys:
            return {}
        with self.sessions.read() as session:
            rows = session.execute(
                text(
                    "SELECT key, change_seq FROM content_search_documents "
                    "WHERE key = ANY(CAST(:keys AS bigint[]))"
                ),
                {"keys": list(keys)},
            )
            return {int(k): int(s) for k, s in rows}

    def database_id(self) -> str | None:
        return self._database

    def bind_database(self, identity: str) -> bool:
        # Inside the database it indexes: restored and copied with it, never from another one.
        self._database = identity
        return False

    def apply(self, batches: Iterator[list[Change]], upto: int, *, since: int) -> int:
        del since  # writes are conditioned on each row's sequence and the watermark only rises
        applied = changes = 0
        for batch in batches:  # one transaction per batch: a rebuild never holds one for long
            with self.sessions.write() as session:
                live = [document_row(c.item) for c in batch if c.item is not None]
                if live:
                    session.execute(_UPSERT, live)
                gone = [(c.content_id, c.seq) for c in batch if c.item is None]
                if gone:
                    session.execute(
                        text(
                            "DELETE FROM content_search_documents d USING unnest("
                            "CAST(:ids AS varchar[]), CAST(:seqs AS bigint[])) AS g(id, seq) "
                            "WHERE d.content_id = g.id AND d.change_seq <= g.seq"
                        ),
                        {"ids": [g[0] for g in gone], "seqs": [g[1] for g in gone]},
                    )
            applied += len(live)
            changes += len(batch)
        with self.sessions.write() as session:
            session.execute(
                text(
                    "INSERT INTO search_projections (name, applied_seq, updated_at) "
                    "VALUES (:name, :seq, now()) ON CONFLICT (name) DO UPDATE SET "
                    "applied_seq = GREATEST(search_projections.applied_seq, excluded.applied_seq), "
                    "updated_at = excluded.updated_at"
                ),
                {"name": PROJECTION, "seq": upto},
            )
            if changes >= ANALYZE_AFTER:
                # Fresh planner statistics: the search reads common terms' frequencies there.
                session.execute(text("ANALYZE content_search_documents"))
        self._applied = max(self._applied, upto)
        return applied

    def drop_if_before(self, floor: int) -> bool:
        if not 0 < self._applied < floor:
            return False
        with self.sessions.write() as session:
            applied = session.execute(  # another process may have rebuilt it meanwhile
                text("SELECT applied_seq FROM search_projections WHERE name = :name FOR UPDATE"),
                {"name": PROJECTION},
            ).scalar_one_or_none()
            if not 0 < int(applied or 0) < floor:
                self._applied = int(applied or 0)
                return False
            self._empty(session)
        self._applied = 0
        return True

    def clear(self) -> None:
        with self.sessions.write() as session:
            self._empty(session)
        self._applied = 0

    @staticmethod
    def _empty(session: Session) -> None:
        session.execute(text("DELETE FROM content_search_documents"))
        session.execute(
            text("DELETE FROM search_projections WHERE name = :name"), {"name": PROJECTION}
        )


def _read_watermark(session: Session) -> int:
    value = session.execute(
        text("SELECT applied_seq FROM search_projections WHERE name = :name"), {"name": PROJECTION}
    ).scalar_one_or_none()
    return int(value or 0)


class PostgresSearch(HybridAdapter):
    name = "postgresql"

    def __init__(
        self,
        sessions: SessionFactory,
        index_dir: Path | None,
        *,
        encoder: CachedQueryEncoder,
        model: RelevanceModel,
        margin: int,
        settings: RetrievalSettings | None = None,
        latest_change: Callable[[], int | None] | None = None,
    ) -> None:
        self.stats = CollectionStats()
        self.projection = PostgresProjection(sessions)
        super().__init__(
            lexical_sync=ProjectionSync(self.projection, margin=margin, embedding_model=None),
            dense=DenseSide(
                index_dir,
                encoder=encoder,
                model=model,
                margin=margin,
                settings=settings,
                latest_change=latest_change,
            ),
            model=model,
        )

    def _lexical_applied_seq(self) -> int:
        return self.projection.applied_seq()

    def _clear_lexical(self) -> None:
        self.projection.clear()

    def _scope(self, session: Session, parsed: ParsedQuery, flt: IndexFilter) -> LexicalScope:
        return PostgresScope(
            session, self.stats, self.model.boosts, parsed, flt, self.projection.applied_seq()
        )
