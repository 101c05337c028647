"""The settings that say where Herald keeps its state: the data directory and the databases.

They are part of :class:`herald.config.Settings` (its first fields, with the same ``HERALD_``
variables); kept here with their own checks: database URLs as people paste them, and a read
replica only with PostgreSQL.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

DEFAULT_HOME = Path.home() / ".herald"


SUPPORTED_URLS = "Herald supports sqlite:/// and postgresql:// URLs"


def _check_supported_url(value: str) -> None:
    """Refuse a database URL Herald cannot use, naming only its scheme (never the rest: it may
    hold a password)."""
    try:
        url = make_url(value)
    except ArgumentError:
        raise ValueError(f"{SUPPORTED_URLS}, and this is not a URL") from None
    backend, driver = url.get_backend_name(), url.get_driver_name()
    if backend == "sqlite" or (backend == "postgresql" and driver == "psycopg"):
        return
    scheme = value.split("://", 1)[0]
    raise ValueError(f"{SUPPORTED_URLS} (PostgreSQL through psycopg), not {scheme}")


class StorageSettings(BaseSettings):
    """The data directory and the state databases (see :class:`herald.config.Settings`)."""

    home: Path = Field(
        default=DEFAULT_HOME,
        description="Data directory: the SQLite file, search indexes and caches live here.",
    )
    database_url: str | None = Field(
        default=None,
        description=(
            "SQLAlchemy URL of the state database. Unset: SQLite at HOME/herald.db. "
            "A PostgreSQL URL (postgresql+psycopg://user@host/db) moves the state to PostgreSQL. "
            "Only SQLite (sqlite:///PATH) and PostgreSQL through psycopg (postgresql://, "
            "postgres:// or postgresql+psycopg://) are supported."
        ),
    )
    database_read_url: str | None = Field(
        default=None,
        description=(
            "SQLAlchemy URL of a PostgreSQL streaming replica of the state database. Set: "
            "searches and content, entity and cluster reads of member keys go to it; writes, "
            "jobs and everything else stay on `HERALD_DATABASE_URL` (docs/operations.md, "
            '"Read replicas"). Needs PostgreSQL.'
        ),
    )
    database_read_max_lag_seconds: float = Field(
        default=5.0,
        ge=0,
        description=(
            "A read replica whose replay is further behind than this is not read from: "
            "its reads go to the primary until it catches up."
        ),
    )
    database_read_wait_ms: int = Field(
        default=0,
        ge=0,
        le=10_000,
        description=(
            "Reads that must see their own writes (those of admin keys) may wait this long for "
            "the read replica to replay everything the primary had written when the read began, "
            "then read the replica; a replica still behind then leaves the read to the primary. "
            "0: such reads go to the primary at once."
        ),
    )

    @field_validator("database_url", "database_read_url")
    @classmethod
    def _normalise_database_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        # Accept the URLs people paste from other tools; Herald talks to PostgreSQL via psycopg 3.
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                value = "postgresql+psycopg://" + value[len(prefix) :]
        _check_supported_url(value)
        return value

    @model_validator(mode="after")
    def _check_read_url(self) -> StorageSettings:
        if self.database_read_url is None:
            return self
        if not self.database_read_url.startswith("postgresql") or self.is_sqlite:
            raise ValueError(
                "HERALD_DATABASE_READ_URL needs PostgreSQL, in it and in HERALD_DATABASE_URL"
            )
        return self

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.home / 'herald.db'}"

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")
