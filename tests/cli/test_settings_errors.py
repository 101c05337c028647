"""An invalid setting stops every command, `herald serve` included, with one line naming the
variable and its rule (exit code 2, as a usage error), never a traceback or a password."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import herald
from herald.config import Settings

HERALD = Path(sys.executable).with_name("herald")
URL_RULE = "Herald supports sqlite:/// and postgresql:// URLs"


def run(tmp_path: Path, variables: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {"HERALD_HOME": str(tmp_path / "home"), **variables}
    # Run in an empty directory (no .env), importing this checkout of Herald.
    env["PYTHONPATH"] = str(Path(herald.__file__).parents[1])
    return subprocess.run(
        [HERALD, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "args", [("sources", "list"), ("db", "upgrade"), ("serve",), ("worker",), ("keys", "list")]
)
def test_an_unsupported_database_url_is_one_line_naming_the_setting(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = run(tmp_path, {"HERALD_DATABASE_URL": "mysql://herald:s3cret@db/herald"}, *args)
    assert result.returncode == 2
    assert result.stderr == (
        f"HERALD_DATABASE_URL: {URL_RULE} (PostgreSQL through psycopg), not mysql\n"
    )
    assert "s3cret" not in result.stdout + result.stderr


def test_each_invalid_setting_is_its_own_line(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        {"HERALD_PORT": "eighty", "HERALD_DATABASE_URL": "herald:s3cret@db"},
        "sources",
        "list",
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"HERALD_DATABASE_URL: {URL_RULE}, and this is not a URL",
        "HERALD_PORT: Input should be a valid integer, unable to parse string as an integer",
    ]
    assert "s3cret" not in result.stderr


def test_a_rule_across_settings_names_them(tmp_path: Path) -> None:
    result = run(tmp_path, {"HERALD_DATABASE_READ_URL": "postgresql://r:s3cret@db/h"}, "serve")
    assert result.returncode == 2
    assert result.stderr == (
        "HERALD_DATABASE_READ_URL needs PostgreSQL, in it and in HERALD_DATABASE_URL\n"
    )


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:////var/lib/herald/herald.db",
        "postgres://herald@db/herald",
        "postgresql://herald@db/herald",
        "postgresql+psycopg://herald@db/herald",
    ],
)
def test_the_supported_urls_are_accepted(tmp_path: Path, url: str) -> None:
    assert Settings(home=tmp_path, database_url=url).resolved_database_url.split(":")[0] in (
        "sqlite",
        "postgresql+psycopg",
    )


def test_a_postgresql_driver_herald_does_not_use_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"PostgreSQL through psycopg\), not postgresql\+asyncpg"):
        Settings(home=tmp_path, database_url="postgresql+asyncpg://herald@db/herald")
