"""entity name keys: spaced initials joined ("A. J. Smith" has the key of "A.J. Smith")

Revision ID: 0010_initials_name_keys
Revises: 0009_job_claim_indexes
Create Date: 2026-11-27 06:00:00.000000

The stored name keys of entities whose names hold spaced initials are rebuilt with the name
normalisation of this release. Other entities' keys do not change. Ids never change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

import sqlalchemy as sa
from alembic import op

from herald.entities.names import name_keys

revision: str = "0010_initials_name_keys"
down_revision: str | Sequence[str] | None = "0009_job_claim_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SPACED_INITIALS = re.compile(r"\b[^\W\d_]\. [^\W\d_]\b")
_BATCH = 2000

_entities = sa.table("entities", sa.column("id"), sa.column("display_name"), sa.column("aliases"))
_aliases = sa.table("entity_aliases", sa.column("alias_norm"), sa.column("entity_id"))


def _names(display_name: str, aliases: object) -> list[str]:
    if isinstance(aliases, str):  # SQLite hands JSON back as text
        aliases = json.loads(aliases)
    listed = aliases if isinstance(aliases, list) else []
    return [display_name, *(a for a in listed if isinstance(a, str))]


def _rekeyed(bind: sa.Connection) -> Iterator[tuple[str, set[str]]]:
    rows = bind.execute(
        sa.select(_entities.c.id, _entities.c.display_name, _entities.c.aliases).execution_options(
            yield_per=5000
        )  # a knowledge base may hold millions
    )
    for entity_id, display_name, aliases in rows:
        names = _names(display_name, aliases)
        if any(_SPACED_INITIALS.search(n) for n in names):
            keys = set().union(*(name_keys(n) for n in names)) - {""}
            yield entity_id, keys


def upgrade() -> None:
    bind = op.get_bind()
    changed = list(_rekeyed(bind))
    for at in range(0, len(changed), _BATCH):
        batch = changed[at : at + _BATCH]
        bind.execute(sa.delete(_aliases).where(_aliases.c.entity_id.in_([i for i, _ in batch])))
        rows = [
            {"alias_norm": key[:300], "entity_id": entity_id}
            for entity_id, keys in batch
            for key in sorted(keys)
        ]
        if rows:
            bind.execute(sa.insert(_aliases), rows)


def downgrade() -> None:
    """Nothing to undo: the earlier release reads no stored name key, and writes an entity's
    keys afresh whenever it stores the entity."""
