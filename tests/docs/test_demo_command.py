"""`herald demo` (the middle step of `make run`): what it prints, and what a second run does."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from herald.cli.demo import NEXT_STEPS
from herald.cli.main import app
from herald.config import Settings

runner = CliRunner()
KEY_LINE = re.compile(r"^\s+export HERALD_API_KEY=(hk_\S+)$", re.M)
EXPORTS = re.compile(r"^\s+(export HERALD_\w+=\S+)$", re.M)


def env_for(settings: Settings, **extra: str) -> dict[str, str]:
    return {
        "HERALD_HOME": str(settings.home),
        "HERALD_DATABASE_URL": settings.resolved_database_url,
        **extra,
    }


def run_demo(settings: Settings, **extra: str) -> str:
    result = runner.invoke(app, ["demo", "--skip-data"], env=env_for(settings, **extra))
    assert result.exit_code == 0, result.output
    return result.stderr


def test_each_run_prints_a_working_key_and_revokes_the_previous_one(
    settings: Settings, client: TestClient
) -> None:
    first = run_demo(settings)
    second = run_demo(settings)
    first_key = KEY_LINE.search(first)
    second_key = KEY_LINE.search(second)
    assert first_key
    assert second_key
    assert first_key.group(1) != second_key.group(1)
    assert "revoked" not in first
    assert "the key an earlier `make run` or `herald demo` printed is revoked" in second

    def status(key: str) -> int:
        return client.get("/v1/monitors", headers={"x-api-key": key}).status_code

    assert status(first_key.group(1)) == 401
    assert status(second_key.group(1)) == 200
    # An admin key: the operator endpoints exist for it.
    assert client.get("/v1/admin/sources", headers={"x-api-key": second_key.group(1)}).is_success


def test_it_prints_the_first_search_and_the_docs_for_the_configured_address(
    settings: Settings,
) -> None:
    printed = run_demo(settings, HERALD_PORT="9123")
    key = KEY_LINE.search(printed)
    assert key
    exports = EXPORTS.findall(printed)
    assert exports == [
        f"export HERALD_API_KEY={key.group(1)}",
        "export HERALD_BASE_URL=http://127.0.0.1:9123",
    ]
    [curl] = [line.strip() for line in printed.splitlines() if line.strip().startswith("curl ")]
    # The curl line as a shell runs it after the exports: its words, with the variables expanded.
    words = subprocess.run(
        ["bash", "-c", "\n".join([*exports, curl.replace("curl", "printf '%s\\n'", 1)])],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert words == [
        "-s",
        "http://127.0.0.1:9123/v1/content/search",
        "-H",
        f"x-api-key: {key.group(1)}",
        "-H",
        "content-type: application/json",
        "-d",
        '{"query": "earthquake"}',
    ]
    assert "API docs: http://127.0.0.1:9123/docs" in printed
    assert "Web console: http://127.0.0.1:9123/console (sign in with the key above)" in printed
    assert "docs/quickstart.md" in printed
    for line in NEXT_STEPS:  # the next steps, spelled out as commands
        assert line in printed


def test_the_next_steps_printed_are_commands_herald_takes() -> None:
    for line in NEXT_STEPS:
        words = shlex.split(line)
        assert words[0] == "herald"
        words = [w for w in words[1:] if not w.startswith("https://")]  # refused offline
        result = runner.invoke(app, [*words, "--help"])
        assert result.exit_code == 0, result.output
        for option in (w for w in words if w.startswith("--")):
            assert option in result.output


def test_a_server_on_every_interface_is_shown_at_loopback(settings: Settings) -> None:
    printed = run_demo(settings, HERALD_HOST="0.0.0.0")
    assert "API docs: http://127.0.0.1:8080/docs" in printed
    printed = run_demo(settings, HERALD_HOST="::1")
    assert "API docs: http://[::1]:8080/docs" in printed


def test_json_prints_the_key_and_the_address(settings: Settings, client: TestClient) -> None:
    result = runner.invoke(
        app, ["demo", "--skip-data", "--json"], env=env_for(settings, HERALD_PORT="9124")
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"team_id", "api_key", "base_url"}
    assert payload["base_url"] == "http://127.0.0.1:9124"
    assert client.get("/v1/monitors", headers={"x-api-key": payload["api_key"]}).is_success


def test_a_port_chosen_in_dot_env_as_the_quickstart_says_is_the_printed_one(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quickstart = (Path(__file__).resolve().parents[2] / "docs" / "quickstart.md").read_text()
    [port] = re.findall(r"`echo HERALD_PORT=(\d+) >> \.env`", quickstart)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    subprocess.run(["bash", "-c", f"echo HERALD_PORT={port} >> .env"], cwd=checkout, check=True)
    monkeypatch.chdir(checkout)  # `herald` reads the .env of the directory it starts in
    printed = run_demo(settings)
    assert f"export HERALD_BASE_URL=http://127.0.0.1:{port}" in printed
    assert f"Web console: http://127.0.0.1:{port}/console" in printed
