"""`herald mcp` without a key says what to set instead of starting a server that cannot work."""

from __future__ import annotations

from typer.testing import CliRunner

from herald.cli.main import app


def test_herald_mcp_needs_an_api_key() -> None:
    result = CliRunner().invoke(app, ["mcp"], env={"HERALD_API_KEY": ""})
    assert result.exit_code == 2
    assert "HERALD_API_KEY" in result.output
