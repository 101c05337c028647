"""What `herald monitors` and `herald webhooks` share: the HTTP API through the Python client.

These commands act for one workspace, the one of the API key, so they call the running server
as any client would (HERALD_BASE_URL, HERALD_API_KEY) instead of opening the database: every
rule (validation, limits, the 72-hour window, webhook target checks) stays in the API, and the
same commands manage a remote server. docs/cli.md says more.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import herald_client
import typer
from pydantic import BaseModel
from rich.markup import escape

from herald.cli.common import console, load_settings, progress
from herald.core.net import without_credentials

BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        envvar="HERALD_BASE_URL",
        help="The Herald API (default: HERALD_BASE_URL, else HERALD_HOST and HERALD_PORT).",
        show_default=False,
    ),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="HERALD_API_KEY",
        help="API key of the workspace to act for (prefer the HERALD_API_KEY variable).",
        show_default=False,
    ),
]
# Addresses a server binds to but a client cannot usefully connect to.
_ANY_ADDRESS = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}  # noqa: S104
FINISHED = ("succeeded", "failed")


def local_base_url(host: str, port: int) -> str:
    """Where a client on this machine reaches `herald serve` bound to ``host:port``."""
    shown = _ANY_ADDRESS.get(host, f"[{host}]" if ":" in host else host)
    return f"http://{shown}:{port}"


@contextmanager
def api_client(
    base_url: str | None, api_key: str | None, *, not_found: str | None = None
) -> Iterator[herald_client.Client]:
    """A client of the API; an API error ends the command with its code and message (exit 1),
    and a 404 also with ``not_found`` (the command that creates what was missing)."""
    if not api_key:
        console.print(
            "[red]set HERALD_API_KEY (or --api-key) to an API key of the workspace[/] "
            "(`herald keys create --workspace NAME`)"
        )
        raise typer.Exit(2)
    if not base_url:
        settings = load_settings()
        base_url = local_base_url(settings.host, settings.port)
    try:
        client = herald_client.Client(base_url=base_url, api_key=api_key, max_retries=1)
    except herald_client.HeraldError as exc:  # a key no header can carry
        console.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None
    try:
        with client:
            yield client
    except herald_client.APIStatusError as exc:
        message = exc.message
        if not_found is not None and exc.status_code == 404:
            # The command that creates what was missing, instead of the API's request for it.
            message = f"{message.partition('; ')[0]}; {not_found}"
        # The client refuses a value of the wrong type itself, as the API would: nothing sent.
        origin = "not sent" if exc.response is None else exc.status_code
        console.print(f"[red]{exc.code}[/] ({origin}): {escape(message)}")
        for detail in exc.details or []:
            console.print(f"  {escape(detail.field)}: {escape(detail.message)}")
        raise typer.Exit(1) from None
    except herald_client.APIConnectionError as exc:
        console.print(
            f"[red]cannot reach Herald at {escape(without_credentials(base_url))}[/]: "
            f"{escape(exc.message)}\n"
            "Is `herald serve` running there? Set HERALD_BASE_URL (or --base-url) to its address."
        )
        raise typer.Exit(1) from None


def dump(model: BaseModel) -> dict[str, Any]:
    """A response model as JSON-ready data, without the per-request ``meta``."""
    return model.model_dump(mode="json", exclude={"meta"}, exclude_none=False)


def wait_for_task(
    fetch: Callable[[], herald_client.models.BackfillTask], *, timeout: float, poll: float = 0.5
) -> herald_client.models.BackfillTask:
    """Poll a monitor task until it has finished, with a progress bar over its dated jobs.

    Raises ``TimeoutError`` when it has not finished within ``timeout`` seconds (no worker?).
    """
    deadline = time.monotonic() + timeout
    with progress() as bar:
        task = fetch()
        job = bar.add_task("dated jobs", total=max(len(task.tasks), 1))
        while True:
            done = sum(1 for child in task.tasks if child.status in (*FINISHED, "skipped"))
            bar.update(job, completed=done, total=max(len(task.tasks), 1))
            if task.status in FINISHED:
                return task
            if time.monotonic() > deadline:
                raise TimeoutError(task.status)
            time.sleep(poll)
            task = fetch()
