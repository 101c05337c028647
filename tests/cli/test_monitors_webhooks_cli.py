"""`herald monitors ...` and `herald webhooks ...` against a real server on loopback, both
databases: they go through the HTTP API with the key of one workspace."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from typer.testing import CliRunner

from herald.cli import common
from herald.cli.main import app
from tests.cli.conftest import Served

runner = CliRunner()


def herald(served: Served, *args: str, key: str | None = None, code: int = 0) -> Any:
    result = runner.invoke(app, list(args), env=served.env(key))
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def as_json(served: Served, *args: str, key: str | None = None) -> Any:
    return json.loads(herald(served, *args, "--json", key=key).stdout)


@pytest.fixture
def narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables printed 80 columns wide, as in a default terminal, whatever runs the tests."""
    monkeypatch.setattr(common.stdout, "_width", 80)


def test_create_backfill_and_results_of_a_monitor(served: Served, narrow_terminal: None) -> None:
    created = as_json(
        served, "monitors", "create", "Quakes", "--query", "earthquake",
        "--media-type", "news", "--media-type", "wire",
        "--frequency", "daily", "--run-time", "07:00", "--timezone", "Europe/Paris",
    )  # fmt: skip
    monitor_id = created["id"]
    assert monitor_id.startswith("mon_")
    assert created["search"]["media_types"] == ["news", "wire"]
    assert created["schedule"]["run_time"] == "07:00"
    assert created["schedule"]["timezone"] == "Europe/Paris"

    listed = as_json(served, "monitors", "list")["monitors"]
    assert [m["id"] for m in listed] == [monitor_id]
    # The table shows the whole id, to be copied into the next command, even 80 columns wide.
    shown = herald(served, "monitors", "list").stdout
    assert monitor_id in shown
    assert "…" not in shown  # the name, query, schedule and next run whole too
    assert "schedule: daily at 07:00 Europe/Paris" in shown
    # Another workspace's key sees none of it: the key selects the workspace.
    assert as_json(served, "monitors", "list", key=served.other_key)["monitors"] == []

    today = dt.datetime.now(dt.UTC).date()
    task = as_json(
        served, "monitors", "backfill", monitor_id,
        "--start-date", (today - dt.timedelta(days=6)).isoformat(),
        "--end-date", today.isoformat(), "--wait", "--timeout", "120",
    )  # fmt: skip
    assert task["status"] == "succeeded", task
    assert task["summary"]["succeeded"] == 7
    assert len(task["tasks"]) == 7

    found = as_json(served, "monitors", "results", monitor_id)
    titles = sorted(r["content_item"]["title"] for r in found["results"])
    assert titles == [
        "Earthquake shakes the coast of Chile",
        "Strong earthquake hits Chile, buildings damaged",
    ]
    assert len(as_json(served, "monitors", "results", monitor_id, "--limit", "1")["results"]) == 1
    results_table = herald(served, "monitors", "results", monitor_id).stdout
    assert all(r["content_item"]["id"] in results_table for r in found["results"])
    # Too wide for 80 columns: a block of lines per result under the count, nothing cut.
    assert results_table.startswith("2 results\n")
    assert "…" not in results_table
    assert "title:     Strong earthquake hits Chile, buildings damaged" in results_table

    shown = as_json(served, "monitors", "show", monitor_id)
    assert shown["monitor"]["id"] == monitor_id
    assert shown["ledger"]["succeeded"] == 7
    assert shown["runs"]
    table = herald(served, "monitors", "show", monitor_id).stdout
    assert "Quakes" in table
    assert "dates: 7 (7 succeeded" in table

    queued = as_json(served, "monitors", "run", monitor_id)
    assert queued["task_id"]
    assert queued["summary"]["requested"] == 4


def test_api_errors_end_the_command_with_the_code_and_message(served: Served) -> None:
    missing = herald(served, "monitors", "show", "mon_doesnotexist", code=1)
    assert "not_found" in missing.stderr
    too_many = herald(
        served, "monitors", "backfill", "mon_x", "--start-date", "2026-01-01",
        "--end-date", "2026-12-31", code=2,
    )  # fmt: skip
    assert "1 to 100 dates" in too_many.stderr
    bad_zone = herald(
        served, "monitors", "create", "Bad", "--query", "x", "--timezone", "Mars/Olympus", code=1
    )
    assert bad_zone.stderr.startswith("invalid_timezone (400): 'Mars/Olympus' is not an IANA")
    # Refused by the client before it is sent: the API's code, message and fields, as an API
    # error reads, "not sent" in place of the HTTP status.
    weekly = herald(
        served, "monitors", "create", "W", "--query", "x", "--frequency", "weekly", code=1
    )
    problem = "schedule.frequency: Input should be 'hourly' or 'daily'"
    assert " ".join(weekly.stderr.split()) == (
        f"invalid_request (not sent): invalid request: {problem} {problem}"
    )
    assert weekly.stderr.splitlines()[-1] == f"  {problem}"
    result = runner.invoke(app, ["monitors", "list"], env=served.env() | {"HERALD_API_KEY": ""})
    assert result.exit_code == 2
    assert "HERALD_API_KEY" in result.stderr
    unreachable = runner.invoke(
        app, ["webhooks", "show"], env=served.env() | {"HERALD_BASE_URL": "http://127.0.0.1:9"}
    )
    assert unreachable.exit_code == 1
    assert "cannot reach Herald at http://127.0.0.1:9" in unreachable.stderr


def test_webhook_target_test_delivery_and_attempts(served: Served, narrow_terminal: None) -> None:
    assert as_json(served, "webhooks", "show") == {
        "configured": False, "url": None, "enabled": False, "signing_secret": None,
        "disabled_reason": None, "disabled_at": None,  # never paused
    }  # fmt: skip
    untargeted = herald(served, "webhooks", "test", code=1)
    assert " ".join(untargeted.stderr.split()) == (
        "not_found (404): this workspace has no webhook target; create one with"
        " `herald webhooks set https://...`"
    )  # the command's hint, not the API's ("PUT /v1/webhooks")
    url = served.receiver.url("/herald", host="127.0.0.1")
    set_once = as_json(served, "webhooks", "set", url)  # the URL as an argument, or --url
    assert set_once["webhook"]["url"] == url
    assert set_once["new_signing_secret"].startswith("whsec_")
    shown = herald(served, "webhooks", "show").stdout
    assert f"url: {url}" in shown
    assert set_once["new_signing_secret"] not in shown  # only the preview

    delivery = as_json(served, "webhooks", "test")
    assert delivery["event_type"] == "webhook.test"
    assert delivery["delivery_status"] == "succeeded"
    assert delivery["last_http_status"] == 200
    [received] = served.receiver.requests
    assert json.loads(received.body)["type"] == "webhook.test"

    attempts = as_json(served, "webhooks", "deliveries")["attempts"]
    assert [(a["event_id"], a["http_status"]) for a in attempts] == [(delivery["event_id"], 200)]
    shown = herald(served, "webhooks", "deliveries").stdout
    assert delivery["event_id"] in shown
    # 80 columns are too few for the table: each attempt is lines of its own, nothing cut.
    assert "…" not in shown
    assert "event:    webhook.test" in shown
    assert "status:   succeeded" in shown
    assert as_json(served, "webhooks", "set", "--disable")["webhook"]["enabled"] is False
    assert "new_signing_secret" not in herald(served, "webhooks", "set", "--enable").stdout
    refused = herald(served, "webhooks", "set", "--url", "http://example.com/hook", code=1)
    assert "invalid_webhook_url" in refused.stderr
    twice = herald(served, "webhooks", "set", url, "--url", url + "/other", code=2)
    assert "give the URL once" in twice.stderr


@pytest.mark.parametrize("command", [["monitors", "list"], ["mcp"]])
def test_a_key_no_header_can_carry_is_refused_in_one_line(command: list[str]) -> None:
    result = runner.invoke(
        app, [*command, "--base-url", "http://127.0.0.1:9", "--api-key", "hk_café"]
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # refused, not crashed
    assert "printable ASCII" in result.output


def test_an_unreachable_api_is_named_without_the_credentials_in_its_url() -> None:
    # A reverse proxy in front of Herald may ask for Basic credentials, given in the base URL.
    result = runner.invoke(
        app,
        ["monitors", "list", "--base-url", "http://proxyuser:pr0xy-s3cret@127.0.0.1:9"],
        env={"HERALD_API_KEY": "hk_example"},
    )
    assert result.exit_code == 1, result.output
    assert "cannot reach Herald at http://***@127.0.0.1:9" in result.stderr
    assert "pr0xy-s3cret" not in result.output
    assert "proxyuser" not in result.output
