"""deploy/: the systemd units run commands and options the `herald` CLI has, their environment
file sets only real settings, and the proxy examples agree with Herald's limits and units."""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from herald.cli.main import app
from herald.config import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))


def read_unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string(path.read_text())
    return parser


def resolve(words: list[str]) -> tuple[Any, list[str]]:
    """The click command a `herald ...` command line runs, and the words after its name."""
    command: Any = typer.main.get_command(app)
    rest = list(words)
    while rest and hasattr(command, "commands") and rest[0] in command.commands:
        command = command.commands[rest.pop(0)]
    assert not hasattr(command, "commands"), f"`herald {' '.join(words)}` names no command"
    return command, rest


def check_options(command: Any, words: list[str]) -> dict[str, Any]:
    """Parse the words as the command would (unknown options and bad values fail), without
    running it; the parsed values."""
    context = command.make_context(command.name, list(words))
    assert context.args == [], f"{command.name} does not take {context.args}"
    return dict(context.params)


def test_there_are_units_for_one_machine_and_for_scale_out() -> None:
    assert {p.name for p in UNITS} == {
        "herald.service",
        "herald-api@.service",
        "herald-worker@.service",
    }


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_each_unit_runs_an_existing_herald_command(unit: Path) -> None:
    parsed = read_unit(unit)
    assert {"Unit", "Service", "Install"} <= set(parsed.sections())
    service = parsed["Service"]
    words = shlex.split(service["ExecStart"].replace("%i", "8080"))
    assert words[0] == "/opt/herald/.venv/bin/herald"
    command, rest = resolve(words[1:])
    assert command.name in {"serve", "worker"}
    params = check_options(command, rest)
    if command.name == "serve":
        assert params["host"] == "127.0.0.1"  # only the proxy is reachable from outside
    assert service["EnvironmentFile"] == "/etc/herald/herald.env"
    assert service["KillSignal"] == "SIGTERM"  # the signal Herald stops gracefully on
    assert service["ReadWritePaths"] == "/var/lib/herald"
    assert parsed["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_each_unit_keeps_what_herald_writes_from_other_local_users(unit: Path) -> None:
    # The SQLite database holds every webhook signing secret, and the index the content.
    assert read_unit(unit)["Service"]["UMask"] == "0077"


def test_the_data_directory_is_made_private_at_install() -> None:
    install = (ROOT / "docs" / "deployment.md").read_text()
    assert "useradd --system --home /var/lib/herald --create-home herald\n" in install
    assert "\nchmod 700 /var/lib/herald" in install  # useradd leaves it readable by everyone


def test_api_units_serve_on_loopback_without_jobs_and_workers_run_jobs() -> None:
    api = shlex.split(read_unit(DEPLOY / "systemd" / "herald-api@.service")["Service"]["ExecStart"])
    assert api[1:] == ["serve", "--no-worker", "--host", "127.0.0.1", "--port", "%i"]
    worker = read_unit(DEPLOY / "systemd" / "herald-worker@.service")["Service"]["ExecStart"]
    assert shlex.split(worker)[1] == "worker"
    # The instance name is the worker's metrics port, on loopback (the scrape config lists it).
    assert shlex.split(worker)[-4:] == ["--metrics-host", "127.0.0.1", "--metrics-port", "%i"]


def test_the_environment_file_sets_only_real_settings() -> None:
    lines = [
        line
        for line in (DEPLOY / "herald.env").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    values = dict(line.split("=", 1) for line in lines)
    fields = {f"HERALD_{name.upper()}" for name in Settings.model_fields}
    assert set(values) <= fields, set(values) - fields
    assert values["HERALD_HOME"] == "/var/lib/herald"
    # The values are valid settings (the file is what every process reads).
    Settings(**{key.removeprefix("HERALD_").lower(): value for key, value in values.items()})


def test_the_proxies_send_to_the_api_units_and_enforce_herald_body_limit() -> None:
    limit = Settings.model_fields["max_body_bytes"].default
    assert limit == 1024 * 1024
    caddy = (DEPLOY / "Caddyfile").read_text()
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert "max_size 1MiB" in caddy
    assert "client_max_body_size 1m;" in nginx  # nginx's m is MiB
    upstreams = ["127.0.0.1:8080", "127.0.0.1:8081"]
    assert re.search(r"reverse_proxy 127\.0\.0\.1:8080 127\.0\.0\.1:8081 ", caddy)
    assert re.findall(r"server (127\.0\.0\.1:\d+)", nginx) == upstreams
    # /metrics and /metrics/shared kept inside: prefix matches, not exact ones.
    assert "respond /metrics* 404" in caddy
    assert re.search(r"location \^~ /metrics \{\s*return 404;", nginx)
    for config in (caddy, nginx):
        assert "/readyz" in config or "max_fails" in config
