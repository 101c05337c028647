"""foundation: workspaces, keys, jobs, content, entities

Revision ID: 0001_foundation
Revises:
Create Date: 2026-11-25 22:08:09.416176
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import herald.db.base

revision: str = "0001_foundation"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # herald.content.changes draws change_seq values from it.
        op.execute("CREATE SEQUENCE IF NOT EXISTS content_change_seq")
    op.create_table(
        "content_items",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("canonical_key", sa.Text(), nullable=False),
        sa.Column("media_type", sa.String(length=16), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("external_id", sa.String(length=512), nullable=True),
        sa.Column("source_id", sa.String(length=40), nullable=True),
        sa.Column("source_name", sa.String(length=300), nullable=False),
        sa.Column("source_domain", sa.String(length=253), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column(
            "authors",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("language", sa.String(length=12), nullable=True),
        sa.Column("published_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column(
            "transcript_segments",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("summary_provided", sa.Boolean(), nullable=False),
        sa.Column(
            "summaries",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "key_points",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "segments",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("word_count", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("article_id", sa.String(length=40), nullable=True),
        sa.Column("podcast_id", sa.String(length=200), nullable=True),
        sa.Column("podcast_title", sa.Text(), nullable=True),
        sa.Column("podcast_publisher", sa.Text(), nullable=True),
        sa.Column("episode_id", sa.String(length=200), nullable=True),
        sa.Column("audio_url", sa.Text(), nullable=True),
        sa.Column("duration_seconds", sa.Integer(), nullable=True),
        sa.Column("cluster_id", sa.String(length=40), nullable=True),
        sa.Column("enriched_at", herald.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("change_seq", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", herald.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_content_items")),
    )
    with op.batch_alter_table("content_items", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_content_items_article_id"), ["article_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_content_items_change_seq"), ["change_seq"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_content_items_cluster_id"), ["cluster_id"], unique=False
        )
        batch_op.create_index("ix_content_items_domain", ["source_domain"], unique=False)
        batch_op.create_index(
            "ix_content_items_media_published", ["media_type", "published_at"], unique=False
        )
        batch_op.create_index("ix_content_items_published", ["published_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_content_items_source_id"), ["source_id"], unique=False)

    op.create_table(
        "entities",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("display_name", sa.String(length=300), nullable=False),
        sa.Column("entity_kind", sa.String(length=16), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column(
            "aliases",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "tags",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_entities")),
    )
    with op.batch_alter_table("entities", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_entities_entity_kind"), ["entity_kind"], unique=False)

    op.create_table(
        "jobs",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("lane", sa.String(length=32), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("unique_key", sa.String(length=255), nullable=True),
        sa.Column("team_id", sa.String(length=40), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("run_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("lease_expires_at", herald.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("worker_id", sa.String(length=120), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", herald.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_jobs_claim",
            ["lane", "status", sa.literal_column("priority DESC"), "run_at", "id"],
            unique=False,
        )
        batch_op.create_index("ix_jobs_unique_key_status", ["unique_key", "status"], unique=False)
        batch_op.create_index("ix_jobs_kind_status", ["kind", "status"], unique=False)
        batch_op.create_index(
            "uq_jobs_queued_unique_key",
            ["unique_key"],
            unique=True,
            sqlite_where=sa.text("status = 'queued'"),
            postgresql_where=sa.text("status = 'queued'"),
        )

    op.create_table(
        "teams",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_teams")),
        sa.UniqueConstraint("name", name=op.f("uq_teams_name")),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("team_id", sa.String(length=40), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("key_prefix", sa.String(length=16), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=True),
        sa.Column("created_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", herald.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_api_keys_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_keys_key_hash")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index("ix_api_keys_team_created", ["team_id", "created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_api_keys_team_id"), ["team_id"], unique=False)

    op.create_table(
        "content_embeddings",
        sa.Column("content_id", sa.String(length=40), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("updated_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["content_id"],
            ["content_items.id"],
            name=op.f("fk_content_embeddings_content_id_content_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("content_id", name=op.f("pk_content_embeddings")),
    )
    op.create_table(
        "content_entities",
        sa.Column("content_id", sa.String(length=40), nullable=False),
        sa.Column("entity_id", sa.String(length=40), nullable=False),
        sa.Column("mention_count", sa.Integer(), nullable=False),
        sa.Column("salience", sa.Float(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("published_at", herald.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("media_type", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["content_id"],
            ["content_items.id"],
            name=op.f("fk_content_entities_content_id_content_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["entity_id"],
            ["entities.id"],
            name=op.f("fk_content_entities_entity_id_entities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("content_id", "entity_id", name=op.f("pk_content_entities")),
    )
    with op.batch_alter_table("content_entities", schema=None) as batch_op:
        batch_op.create_index(
            "ix_content_entities_timeline", ["entity_id", "published_at"], unique=False
        )

    op.create_table(
        "entity_aliases",
        sa.Column("alias_norm", sa.String(length=300), nullable=False),
        sa.Column("entity_id", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(
            ["entity_id"],
            ["entities.id"],
            name=op.f("fk_entity_aliases_entity_id_entities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("alias_norm", "entity_id", name=op.f("pk_entity_aliases")),
    )
    with op.batch_alter_table("entity_aliases", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_entity_aliases_entity_id"), ["entity_id"], unique=False
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP SEQUENCE IF EXISTS content_change_seq")
    with op.batch_alter_table("entity_aliases", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_entity_aliases_entity_id"))

    op.drop_table("entity_aliases")
    with op.batch_alter_table("content_entities", schema=None) as batch_op:
        batch_op.drop_index("ix_content_entities_timeline")

    op.drop_table("content_entities")
    op.drop_table("content_embeddings")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_keys_team_id"))
        batch_op.drop_index("ix_api_keys_team_created")

    op.drop_table("api_keys")
    op.drop_table("teams")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_jobs_queued_unique_key",
            sqlite_where=sa.text("status = 'queued'"),
            postgresql_where=sa.text("status = 'queued'"),
        )
        batch_op.drop_index("ix_jobs_kind_status")
        batch_op.drop_index("ix_jobs_claim")
        batch_op.drop_index("ix_jobs_unique_key_status")

    op.drop_table("jobs")
    with op.batch_alter_table("entities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_entities_entity_kind"))

    op.drop_table("entities")
    with op.batch_alter_table("content_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_content_items_source_id"))
        batch_op.drop_index("ix_content_items_published")
        batch_op.drop_index("ix_content_items_media_published")
        batch_op.drop_index("ix_content_items_domain")
        batch_op.drop_index(batch_op.f("ix_content_items_cluster_id"))
        batch_op.drop_index(batch_op.f("ix_content_items_change_seq"))
        batch_op.drop_index(batch_op.f("ix_content_items_article_id"))

    op.drop_table("content_items")
