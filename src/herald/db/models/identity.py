"""The database's identity: one row with a random id, made when the schema is created.

Indexes kept outside the database (each machine's ``HERALD_HOME/index``) record the identity of
the database they were built from, and are rebuilt when it differs (:mod:`herald.db.identity`).
A restore or a copy gives the resulting database a new one: from then on it goes its own way.
The row also says when ``herald db backup`` last backed this database up (the metric
``herald_database_backed_up_timestamp_seconds``, so an alert can say when backups stop).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from herald.db.base import Base


class DatabaseIdentity(Base):
    __tablename__ = "database_identity"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # always 1
    identity: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime]
    # The end of the newest `herald db backup` of this database (None: none recorded).
    backed_up_at: Mapped[datetime | None]
