"""`herald keys ...` and `herald db upgrade` through the real command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from herald.cli import common
from herald.cli.main import app
from herald.config import Settings

runner = CliRunner()


def env_for(settings: Settings) -> dict[str, str]:
    return {
        "HERALD_HOME": str(settings.home),
        "HERALD_DATABASE_URL": settings.resolved_database_url,
    }


def test_keys_create_json_prints_only_the_pinned_object(
    settings: Settings, client: TestClient
) -> None:
    result = runner.invoke(
        app,
        ["keys", "create", "--workspace", "newsroom", "--role", "admin", "--json"],
        env=env_for(settings),
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"team_id", "api_key"}
    assert payload["team_id"].startswith("team_")
    response = client.get("/readyz", headers={"x-api-key": payload["api_key"]})
    assert response.status_code == 200


def test_list_never_shows_keys_and_revoke_takes_effect(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common.stdout, "_width", 80)  # a default terminal, whatever runs this
    env = env_for(settings)
    created = json.loads(
        runner.invoke(app, ["keys", "create", "--workspace", "w1", "--json"], env=env).stdout
    )
    listing = runner.invoke(app, ["keys", "list"], env=env)
    assert listing.exit_code == 0
    assert created["api_key"] not in listing.stdout
    assert "w1" in listing.stdout
    assert "state:     active" in listing.stdout  # one block per key: 80 columns cut no value
    from herald.runtime import Runtime
    from herald.workspaces.service import list_keys

    # The id is copied from the table, whole even 80 columns wide, into `keys revoke`.
    [shown_id] = re.findall(r"key_\w+", listing.stdout)
    runtime = Runtime(settings)
    try:
        revoked = runner.invoke(app, ["keys", "revoke", shown_id], env=env)
        assert revoked.exit_code == 0, revoked.output
        with runtime.sessions.read() as session:
            [key] = list_keys(session, workspace="w1")
        assert key.key_id == shown_id
        assert key.revoked_at is not None
    finally:
        runtime.close()


def test_unknown_role_is_refused(settings: Settings) -> None:
    result = runner.invoke(
        app, ["keys", "create", "--workspace", "w", "--role", "root"], env=env_for(settings)
    )
    assert result.exit_code == 2


def test_real_subprocess_db_upgrade_then_keys_create(tmp_path: Path) -> None:
    env = os.environ | {"HERALD_HOME": str(tmp_path / "fresh")}
    env.pop("HERALD_DATABASE_URL", None)
    herald = [sys.executable, "-m", "herald.cli.main"]
    upgrade = subprocess.run([*herald, "db", "upgrade"], env=env, capture_output=True, text=True)
    assert upgrade.returncode == 0, upgrade.stderr
    assert (tmp_path / "fresh" / "herald.db").exists()
    created = subprocess.run(
        [*herald, "keys", "create", "--workspace", "demo", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert created.returncode == 0, created.stderr
    assert set(json.loads(created.stdout)) == {"team_id", "api_key"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["keys", "revoke", "key_doesnotexist"], "no API key key_doesnotexist"),
        (["keys", "revoke", "key_[/]"], "no API key key_[/]"),
        (["keys", "create", "--workspace", "   "], "workspace name must not be empty"),
        (["keys", "create", "--workspace", "w" * 201], "at most 200 characters"),
        (["keys", "create", "--workspace", "w", "--label", "l" * 201], "at most 200 characters"),
        (["demo", "--skip-data", "--workspace", "   "], "workspace name must not be empty"),
    ],
)
def test_refusals_are_one_line_not_a_traceback(
    settings: Settings, args: list[str], message: str
) -> None:
    result = runner.invoke(app, args, env=env_for(settings))
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)  # refused, not crashed
    assert message in result.output
    assert "Traceback" not in result.output


def test_names_and_labels_are_shown_as_written(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Square brackets are console markup to the terminal library: a name with them once
    # crashed `keys create` after the key was stored (so it was never shown) and `keys list`.
    monkeypatch.setattr(common.stdout, "_width", 200)
    env = env_for(settings)
    created = runner.invoke(
        app, ["keys", "create", "--workspace", "news[/]room", "--label", "[bold]ci[/]"], env=env
    )
    assert created.exit_code == 0, created.output
    assert "news[/]room" in created.output
    [api_key] = re.findall(r"hk_[\w-]{43}", created.stdout)
    listing = runner.invoke(app, ["keys", "list"], env=env)
    assert listing.exit_code == 0, listing.output
    assert "news[/]room" in listing.stdout
    assert "[bold]ci[/]" in listing.stdout
    assert api_key[:10] in listing.stdout
    assert api_key not in listing.stdout
