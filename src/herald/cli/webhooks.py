"""`herald webhooks ...`: the workspace's webhook target, through the HTTP API (herald.cli.api)."""

from __future__ import annotations

import datetime as dt
from itertools import islice
from typing import Annotated

import typer
from herald_client.models import WebhookConfiguration, WebhookDelivery
from rich.markup import escape
from rich.table import Table

from herald.cli.api import ApiKeyOption, BaseUrlOption, api_client, dump
from herald.cli.common import JsonOption, console, id_column, print_json, print_table, stdout

CREATE_TARGET = "create one with `herald webhooks set https://...`"

app = typer.Typer(
    help="The webhook target of the workspace of HERALD_API_KEY, through the API.",
    no_args_is_help=True,
)


@app.command("show")
def show(
    as_json: JsonOption = False, base_url: BaseUrlOption = None, api_key: ApiKeyOption = None
) -> None:
    """Show the target: its URL, whether it is enabled, and the signing secret's preview."""
    with api_client(base_url, api_key) as client:
        hook = client.webhooks.get()
    if as_json:
        print_json(dump(hook))
        return
    _print_target(hook)


@app.command("set")
def set_target(
    url: Annotated[
        str | None,
        typer.Argument(
            metavar="[URL]",
            help="The HTTPS URL deliveries are POSTed to (or --url).",
            show_default=False,
        ),
    ] = None,
    url_option: Annotated[
        str | None, typer.Option("--url", help="The HTTPS URL deliveries are POSTed to.")
    ] = None,
    enabled: Annotated[
        bool | None,
        typer.Option(
            "--enable/--disable",
            help="Deliver events, or hold them (default: keep).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Create or change the target. The first time, the signing secret is printed: store it,
    it is never shown again."""
    if url is not None and url_option is not None and url != url_option:
        console.print("[red]give the URL once: as an argument or with --url[/]")
        raise typer.Exit(2)
    url = url or url_option
    if url is None and enabled is None:
        console.print("[red]give a URL and/or --enable/--disable[/]")
        raise typer.Exit(2)
    with api_client(base_url, api_key) as client:
        answer = client.webhooks.put(url=url, enabled=enabled)
    if as_json:
        print_json(dump(answer))
        return
    _print_target(answer.webhook)
    if answer.new_signing_secret:
        console.print("Signing secret (shown once, store it now):")
        stdout.print(answer.new_signing_secret, highlight=False)


@app.command("test")
def send_test(
    as_json: JsonOption = False, base_url: BaseUrlOption = None, api_key: ApiKeyOption = None
) -> None:
    """Send a signed `webhook.test` event to the target now and show how the delivery went.

    Exits 1 when the delivery did not succeed at once (it is retried like any other)."""
    with api_client(base_url, api_key, not_found=CREATE_TARGET) as client:
        delivery = client.webhooks.test()
    if as_json:
        print_json(dump(delivery))
    else:
        _print_delivery(delivery)
    if delivery.delivery_status != "succeeded":
        raise typer.Exit(1)


@app.command("deliveries")
def deliveries(
    start: Annotated[
        str | None, typer.Option(help="From this date or time (default: 7 days ago).")
    ] = None,
    end: Annotated[str | None, typer.Option(help="Until this date or time (default: now).")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many attempts.")] = 50,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Delivery attempts to the target, newest first, with their HTTP status and error."""
    with api_client(base_url, api_key) as client:
        found = list(islice(client.webhooks.events_all(start=start, end=end), limit))
    if as_json:
        print_json({"attempts": [dump(a) for a in found]})
        return
    table = Table("attempted", "event", "#", "status", "HTTP", "ms", "error", id_column("event id"))
    for attempt in found:
        table.add_row(
            _when(attempt.attempted_at),
            attempt.event_type,
            str(attempt.attempt_number),
            attempt.delivery_status,
            "" if attempt.http_status is None else str(attempt.http_status),
            "" if attempt.duration_ms is None else str(attempt.duration_ms),
            escape(attempt.error or ""),
            attempt.event_id,
        )
    print_table(table)


def _print_target(hook: WebhookConfiguration) -> None:
    if not hook.configured:
        stdout.print(f"no webhook target: {CREATE_TARGET}")
        return
    secret = hook.signing_secret
    stdout.print(f"url: {hook.url}", highlight=False)
    stdout.print(f"enabled: {'yes' if hook.enabled else 'no'}")
    if secret is not None:
        stdout.print(f"signing secret: {secret.preview}", highlight=False)


def _print_delivery(delivery: WebhookDelivery) -> None:
    status = "" if delivery.last_http_status is None else f" HTTP {delivery.last_http_status}"
    stdout.print(
        f"{delivery.event_type} {delivery.event_id}: {delivery.delivery_status}{status}",
        highlight=False,
    )
    if delivery.last_error:
        stdout.print(f"error: {escape(delivery.last_error)}")


def _when(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
