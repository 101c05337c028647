"""The entity knowledge base (shared by all workspaces)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base, JSONType

ENTITY_KINDS = ("person", "company", "organization", "product", "place", "event")


class Entity(Base):
    __tablename__ = "entities"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(300))
    entity_kind: Mapped[str] = mapped_column(String(16), index=True)
    description: Mapped[str] = mapped_column(Text, default="")
    aliases: Mapped[list[str]] = mapped_column(JSONType, default=list)
    tags: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    origin: Mapped[str] = mapped_column(String(16))  # seed | import | discovered
    # active: linking knows it; candidate: a discovered name awaiting confirmation (linked by the
    # items that name it, never by others); rejected: an operator refused it.
    # (No Python-side default: rows written without it, as by older code, are active.)
    status: Mapped[str] = mapped_column(String(16), server_default="active", index=True)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class EntityRemoval(Base):
    """An entity row deleted (merged into another, a candidate no stored item names any more).

    A database trigger (migration ``0024_entity_removals``) writes one row per deleted entity
    with a new number, the latest removal of an id kept. Each process's in-memory entity views
    read the removals numbered above the last one they read, so they drop deleted entities
    without remembering every id they ever loaded.
    """

    __tablename__ = "entity_removals"

    entity_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, index=True)


class EntityAlias(Base):
    """Normalised names and aliases for lookup (lower case, accents folded)."""

    __tablename__ = "entity_aliases"

    alias_norm: Mapped[str] = mapped_column(String(300), primary_key=True)
    entity_id: Mapped[str] = mapped_column(
        ForeignKey("entities.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class EntitySeedLoad(Base):
    """A seed file loaded, by the digest of its content: a release whose bundled seed gained
    entities adds them once, at the first start after the upgrade."""

    __tablename__ = "entity_seed_loads"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256, hex
    source: Mapped[str] = mapped_column(Text)
    written: Mapped[int]
    loaded_at: Mapped[datetime]


class EntityRedirect(Base):
    """A discovered entity merged into a knowledge-base entity of the same name: the old id
    answers for the entity it was merged into (searches, monitors, timelines)."""

    __tablename__ = "entity_redirects"

    from_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    to_id: Mapped[str] = mapped_column(ForeignKey("entities.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime]


class ContentName(Base):
    """A name an item mentions that linked to no active entity (the name key of a recognised
    mention: unlinked, or linked to a candidate). When an entity of that name becomes active,
    the items holding it are enriched again (``herald.entities.staging``)."""

    __tablename__ = "content_names"

    content_id: Mapped[str] = mapped_column(
        ForeignKey("content_items.id", ondelete="CASCADE"), primary_key=True
    )
    name_key: Mapped[str] = mapped_column(String(300), primary_key=True, index=True)
