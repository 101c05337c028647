"""HERALD_DATABASE_READ_URL needs PostgreSQL; without it every read runs on the primary."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.orm import Session

from herald.config import Settings
from herald.runtime import Runtime

REPLICA = "postgres://herald@replica.internal:5432/herald"


def test_a_read_url_needs_postgresql_in_both_urls(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="HERALD_DATABASE_READ_URL needs PostgreSQL"):
        Settings(home=tmp_path, database_read_url=REPLICA)  # SQLite primary
    with pytest.raises(ValidationError, match="HERALD_DATABASE_READ_URL needs PostgreSQL"):
        Settings(
            home=tmp_path,
            database_url="postgresql://herald@db/herald",
            database_read_url=f"sqlite:///{tmp_path / 'copy.db'}",
        )
    settings = Settings(
        home=tmp_path, database_url="postgresql://herald@db/herald", database_read_url=REPLICA
    )
    assert settings.database_read_url == "postgresql+psycopg://herald@replica.internal:5432/herald"
    assert Settings(home=tmp_path, database_read_url="  ").database_read_url is None


@pytest.mark.parametrize("backend", ["sqlite", "postgres"], indirect=True)
def test_without_a_replica_reads_run_on_the_primary(runtime: Runtime) -> None:
    assert not runtime.reads.configured

    def read(session: Session) -> object:
        assert session.get_bind().pool is runtime.engine.pool  # the primary's connections
        return session.execute(text("SELECT 1")).scalar_one()

    assert runtime.reads.run(read) == 1
    assert runtime.reads.run(read, primary=True) == 1


def test_a_settings_error_never_shows_the_passwords_of_the_database_urls(tmp_path: Path) -> None:
    # The error is printed by every command and logged by a service that fails to start;
    # pydantic shortens the input it quotes, so no part of a password may show either.
    def shows(error: ValidationError, password: str) -> bool:
        return any(password[i : i + 5] in str(error) for i in range(len(password) - 4))

    with pytest.raises(ValidationError) as refused:
        Settings(home=tmp_path, database_read_url="postgresql://herald:Rep1icaPW@replica/herald")
    assert "HERALD_DATABASE_READ_URL needs PostgreSQL" in str(refused.value)
    assert not shows(refused.value, "Rep1icaPW")
    with pytest.raises(ValidationError) as bad_network:
        Settings(
            home=tmp_path,
            webhook_allow_networks="10.0.0.0/33",
            database_url="postgresql://herald:Pr1maryPW@db/herald",
        )
    assert "10.0.0.0/33" in str(bad_network.value)  # the validator's own message names it
    assert not shows(bad_network.value, "Pr1maryPW")
