"""webhooks: targets, signing secrets, events, deliveries, attempts

Revision ID: 0005_webhooks
Revises: 0004_monitors
Create Date: 2026-11-25 22:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import herald.db.base

revision: str = "0005_webhooks"
down_revision: str | Sequence[str] | None = "0004_monitors"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BIGINT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _utc() -> herald.db.base.UTCDateTime:
    return herald.db.base.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "webhook_events",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("team_id", sa.String(length=40), nullable=False),
        sa.Column("event_type", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_webhook_events_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_events")),
    )
    op.create_index(
        "ix_webhook_events_team_created", "webhook_events", ["team_id", "created_at"], unique=False
    )
    op.create_table(
        "webhook_signing_secrets",
        sa.Column("id", _BIGINT, autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("retired_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_webhook_signing_secrets_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_signing_secrets")),
    )
    op.create_index(
        "uq_webhook_signing_secrets_team_version",
        "webhook_signing_secrets",
        ["team_id", "version"],
        unique=True,
    )
    op.create_table(
        "webhook_targets",
        sa.Column("team_id", sa.String(length=40), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_webhook_targets_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("team_id", name=op.f("pk_webhook_targets")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", _BIGINT, autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(length=40), nullable=False),
        sa.Column("event_id", sa.String(length=40), nullable=False),
        sa.Column("event_type", sa.String(length=64), nullable=False),
        sa.Column("is_test", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempt_count", sa.Integer(), nullable=False),
        sa.Column("last_http_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("last_attempt_at", _utc(), nullable=True),
        sa.Column("next_attempt_at", _utc(), nullable=True),
        sa.Column("lease_owner", sa.String(length=40), nullable=True),
        sa.Column("lease_expires_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["webhook_events.id"],
            name=op.f("fk_webhook_deliveries_event_id_webhook_events"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_webhook_deliveries_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index(
        "ix_webhook_deliveries_due", "webhook_deliveries", ["status", "next_attempt_at"]
    )
    op.create_index("ix_webhook_deliveries_event", "webhook_deliveries", ["event_id"])
    op.create_index(
        "ix_webhook_deliveries_team_due",
        "webhook_deliveries",
        ["team_id", "status", "next_attempt_at"],
    )
    op.create_index(
        "ix_webhook_deliveries_team_test", "webhook_deliveries", ["team_id", "is_test", "id"]
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", _BIGINT, autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(length=40), nullable=False),
        sa.Column("delivery_id", _BIGINT, nullable=False),
        sa.Column("event_id", sa.String(length=40), nullable=False),
        sa.Column("event_type", sa.String(length=64), nullable=False),
        sa.Column("attempt_number", sa.Integer(), nullable=False),
        sa.Column("delivery_status", sa.String(length=16), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("attempted_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["webhook_deliveries.id"],
            name=op.f("fk_webhook_attempts_delivery_id_webhook_deliveries"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_webhook_attempts_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_attempts")),
    )
    op.create_index(
        "ix_webhook_attempts_team_attempted", "webhook_attempts", ["team_id", "attempted_at"]
    )
    op.create_index(
        "uq_webhook_attempts_delivery_number",
        "webhook_attempts",
        ["delivery_id", "attempt_number"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_targets")
    op.drop_table("webhook_signing_secrets")
    op.drop_table("webhook_events")
