"""`herald mcp`: Herald's tools for a local AI agent, over stdio."""

from __future__ import annotations

from typing import Annotated

import typer

from herald.cli.common import console
from herald.logging import configure_logging

DEFAULT_BASE_URL = "http://127.0.0.1:8080"


def mcp(
    base_url: Annotated[
        str,
        typer.Option(envvar="HERALD_BASE_URL", help="The Herald API the tools call."),
    ] = DEFAULT_BASE_URL,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="HERALD_API_KEY",
            help="API key of the workspace the agent acts for (prefer the environment variable).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Speak the Model Context Protocol on stdin/stdout for a local agent (Claude Desktop, an
    IDE, an agent framework). Tools search content, stories and entities and manage monitors
    through the Herald API at HERALD_BASE_URL with HERALD_API_KEY. See docs/mcp.md."""
    import anyio
    import herald_client
    from rich.markup import escape

    from herald.mcp.stdio import serve_stdio

    if not api_key:
        console.print("[red]set HERALD_API_KEY (or --api-key) to a Herald API key[/]")
        raise typer.Exit(2)
    # stdout carries the protocol: logs go to stderr, warnings and worse only.
    configure_logging("WARNING", "text")
    try:
        anyio.run(serve_stdio, base_url, api_key)
    except herald_client.HeraldError as exc:  # the client refused the key before any call
        console.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None
