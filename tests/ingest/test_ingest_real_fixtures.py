"""The corpus of real-world shapes (fixtures/real, see its README) through the CLI and the admin
API on SQLite and PostgreSQL: every entry accounted for, and what each file reproduces."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient
from lxml import etree
from sqlalchemy import func, select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.ingest.model import IncomingItem, ItemError, ItemWarning, ParseOutcome, SourceRef
from herald.ingest.pipeline import parse_document, read_document
from herald.ingest.service import store_items
from herald.ingest.sources import detect_format
from herald.runtime import Runtime

from .conftest import FIXTURES

REAL = FIXTURES / "real"
NOT_FEEDS = ("opml_subscriptions.opml", "empty.xml")
CORPUS = sorted(p.name for p in REAL.iterdir() if p.name != "README.md" and p.name not in NOT_FEEDS)
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
CONTENT_TYPES = {
    ".xml": "application/xml",
    ".rdf": "application/rdf+xml",
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
}


def entries_in(path: Path) -> int:
    """Counted without Herald's parsers: XML items/entries, JSON Feed items, ninjs objects,
    non-blank JSON Lines."""
    data = path.read_bytes()
    if path.suffix in (".xml", ".rdf"):
        root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
        return sum(
            1
            for node in root.iter()
            if isinstance(node.tag, str) and etree.QName(node).localname in ("item", "entry")
        )
    if path.suffix == ".jsonl":
        return sum(1 for line in data.splitlines() if line.strip())
    doc = orjson.loads(data)
    if isinstance(doc, list):
        return len(doc)
    return len(doc["items"]) if "items" in doc else 1


def _parse(name: str) -> list[ParseOutcome]:
    return list(
        parse_document(read_document(REAL / name), format_name="auto", clock=FrozenClock(NOW))
    )


def _items(outcomes: list[ParseOutcome]) -> list[IncomingItem]:
    return [o for o in outcomes if isinstance(o, IncomingItem)]


def _warnings(outcomes: list[ParseOutcome]) -> list[str]:
    return [f"{o.location}: {o.reason}" for o in outcomes if isinstance(o, ItemWarning)]


@pytest.fixture
def cli_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HERALD_HOME", str(settings.home))
    monkeypatch.setenv("HERALD_DATABASE_URL", settings.resolved_database_url)
    return settings


def _stored(runtime: Runtime) -> int:
    with runtime.sessions.read() as session:
        return int(session.execute(select(func.count()).select_from(ContentItem)).scalar_one())


def _total(summary: dict[str, object]) -> int:
    counts = [summary["accepted"], summary["updated"], summary["duplicates"], summary["rejected"]]
    return sum(int(c) for c in counts)  # type: ignore[call-overload]


@pytest.mark.parametrize("name", CORPUS)
def test_every_entry_is_accounted_for_by_the_cli(
    name: str, cli_env: Settings, runtime: Runtime
) -> None:
    expected = entries_in(REAL / name)
    assert expected > 0
    runner = CliRunner()
    args = ["ingest", str(REAL / name), "--no-fetch", "--no-wait", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code in (0, 2), first.output
    summary = json.loads(first.stdout)
    assert _total(summary) == expected, summary
    assert _stored(runtime) == summary["accepted"]
    assert first.exit_code == (2 if summary["rejected"] else 0)

    again = json.loads(runner.invoke(app, args).stdout)
    assert (again["accepted"], again["updated"]) == (0, 0), again
    assert again["duplicates"] + again["rejected"] == expected
    assert _stored(runtime) == summary["accepted"]


@pytest.mark.parametrize("name", CORPUS)
def test_every_entry_is_accounted_for_by_the_admin_api(
    name: str, client: TestClient, admin_auth: dict[str, str], runtime: Runtime
) -> None:
    path = REAL / name
    expected = entries_in(path)
    headers = admin_auth | {"Content-Type": CONTENT_TYPES[path.suffix]}
    response = client.post(
        "/v1/admin/content?format=auto", content=path.read_bytes(), headers=headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert _total(body) == expected, body
    assert len(body["errors"]) == body["rejected"]
    assert _stored(runtime) == body["accepted"]


@pytest.mark.parametrize("name", NOT_FEEDS)
def test_a_file_that_is_no_feed_is_one_error(
    name: str, cli_env: Settings, runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    result = CliRunner().invoke(app, ["ingest", str(REAL / name), "--no-wait"])
    assert result.exit_code == 1
    assert ("OPML" in result.output) if name.endswith(".opml") else ("empty" in result.output)
    assert "Traceback" not in result.output
    # An explicit --format does not make an outline a feed either.
    if name.endswith(".opml"):
        explicit = CliRunner().invoke(app, ["ingest", str(REAL / name), "--format", "rss"])
        assert explicit.exit_code == 1
        assert "not an RSS or Atom feed" in " ".join(explicit.output.split())
        response = client.post(
            "/v1/admin/content?format=auto",
            content=(REAL / name).read_bytes(),
            headers=admin_auth | {"Content-Type": "application/xml"},
        )
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_request"
        assert "OPML" in response.json()["message"]
    assert _stored(runtime) == 0


def test_auto_detects_every_format() -> None:
    found = {name: detect_format((REAL / name).read_bytes(), name) for name in CORPUS}
    assert found == {
        "atom10_shared_alternate.xml": "rss",
        "jsonfeed_10_blog.json": "jsonfeed",
        "jsonfeed_11_microblog.json": "jsonfeed",
        "jsonl_out_of_range_dates.jsonl": "jsonl",
        "ninjs_1x_html_body.json": "ninjs",
        "ninjs_2x_array_mixed.json": "ninjs",
        "ninjs_3x_camelcase_urn.json": "ninjs",
        "ninjs_3x_nitf_body.json": "ninjs",
        "podcast20_transcripts.xml": "rss",
        "rss091_userland.xml": "rss",
        "rss10_rdf_dublin_core.rdf": "rss",
        "rss20_linkblog_shared_pages.xml": "rss",
        "rss20_microblog_untitled.xml": "rss",
        "rss20_misread_dates.xml": "rss",
    }
    # Without a telling file name, the content decides.
    assert detect_format((REAL / "jsonfeed_11_microblog.json").read_bytes(), "feed") == "jsonfeed"
    assert detect_format((REAL / "ninjs_3x_nitf_body.json").read_bytes(), "x") == "ninjs"


def test_entries_sharing_a_page_are_never_merged(cli_env: Settings, runtime: Runtime) -> None:
    items = _items(_parse("rss20_linkblog_shared_pages.xml"))
    assert len({i.content_id for i in items}) == 6
    # Own ids (guids) identify the linkblog entries; the daily page keeps its fragments.
    assert [i.external_id for i in items[:4]] == [
        "harbournotes-link-1031",
        "harbournotes-link-1032",
        "https://harbournotes.example.net/2024/03/13.html#morning",
        "https://harbournotes.example.net/2024/03/13.html#evening",
    ]
    result = CliRunner().invoke(
        app, ["ingest", str(REAL / "rss20_linkblog_shared_pages.xml"), "--no-wait", "--json"]
    )
    assert json.loads(result.stdout)["accepted"] == 6
    with runtime.sessions.read() as session:
        titles = set(session.scalars(select(ContentItem.title)))
    assert {"Sponsor: marine insurance explained", "Sponsor: a ferry booking app"} <= titles
    assert {"Morning: fog closes the Elbe", "Evening: the Elbe reopens"} <= titles


def test_untitled_entries_are_titled_from_their_first_sentence() -> None:
    outcomes = _parse("rss20_microblog_untitled.xml")
    items = _items(outcomes)
    assert [(i.title, i.title_derived) for i in items] == [
        ("Finally finished the harbour walk.", True),
        ("Reading the city council's report on the tram extension.", True),
        ("Good morning.", True),
        ("A post with a title", False),
    ]
    assert items[2].url == "https://ana.example.org/2024/05/03/080000.html"  # guid permalink
    assert _warnings(outcomes).count("entry 1: entry has no title; titled from its first sentence")
    feed = _parse("jsonfeed_11_microblog.json")
    assert [i.title for i in _items(feed)][:2] == [
        "The city budget passed by one vote.",
        "Follow-up: the mayor says the vote will be repeated in September.",
    ]


def test_misread_and_ambiguous_dates_are_reported_and_never_stored_silently() -> None:
    outcomes = _parse("rss20_misread_dates.xml")
    items = {i.title: i for i in _items(outcomes)}
    # feedparser alone reads this as 2020-11-01.
    assert items["Council approves the bridge budget"].published_date == datetime(
        2020, 1, 10, 14, 33, tzinfo=UTC
    )
    school = items["School reopens after the storm"]
    assert school.published_is_estimate
    assert school.published_date == NOW
    assert items["Market moves to the square"].published_date == datetime(
        2020, 1, 31, 7, 45, tzinfo=UTC
    )
    library = items["Library extends its hours"]
    assert library.published_date == datetime(2020, 2, 3, 9, 0, tzinfo=UTC)  # its dc:date
    assert not library.published_is_estimate
    assert _warnings(outcomes) == [
        "entry 2: published date '10/02/2020 09:00' is ambiguous (day/month order unknown); "
        "using the time it was first seen",
        "entry 4: published date 'sometime last week' is not a date Herald can read; "
        "using another date",
    ]


def test_out_of_range_dates_are_the_lines_error(cli_env: Settings, runtime: Runtime) -> None:
    result = CliRunner().invoke(
        app, ["ingest", str(REAL / "jsonl_out_of_range_dates.jsonl"), "--no-wait", "--json"]
    )
    assert result.exit_code == 2
    summary = json.loads(result.stdout)
    assert (summary["accepted"], summary["rejected"]) == (2, 2)
    assert [e["line"] for e in summary["errors"]] == [2, 3]
    assert summary["errors"][0]["reason"] == (
        "published_date is out of range (no UTC instant): '9999-12-31T23:59:59-01:00'"
    )
    assert _stored(runtime) == 2


def test_ninjs_versions_bodies_and_urn_sources() -> None:
    (one,) = _items(_parse("ninjs_1x_html_body.json"))
    assert one.authors == ("Jane Roe", "John Doe")
    assert one.body
    assert "<p>" not in one.body

    camel = _parse("ninjs_3x_camelcase_urn.json")
    (item,) = _items(camel)
    assert item.published_date == datetime(2024, 2, 20, 7, 12, tzinfo=UTC)  # firstCreated
    assert (item.source.name, item.source.domain) == ("NTB", "ntb")
    assert item.external_id == "urn:5f0c7d1e-8a4b-4c2d-9e13-0b7a6c2f4d81"
    assert item.body == (
        "Fergene på kysten fraktet flere passasjerer enn noen gang i fjor.\n\n"
        "Økningen var størst på sambandene i Nordland."
    )

    (nitf,) = _items(_parse("ninjs_3x_nitf_body.json"))
    assert nitf.body == (
        "The city marathon will avoid the old bridge this year because of repairs.\n\n"
        "Runners will cross the river on the new footbridge instead, organisers said."
    )
    assert nitf.published_date == datetime(2023, 10, 8, 0, 34, 3, tzinfo=UTC)  # versionCreated

    mixed = _parse("ninjs_2x_array_mixed.json")
    assert [e.reason for e in mixed if isinstance(e, ItemError)] == [
        "ninjs type 'picture' carries no text",
        "item is canceled",
    ]


def test_json_feed_items() -> None:
    blog = _items(_parse("jsonfeed_10_blog.json"))
    assert [(i.external_id, i.authors, i.source.name) for i in blog] == [
        ("2", ("Lena Park",), "Orchard Lab"),
        ("1", ("Lena Park",), "Orchard Lab"),
    ]
    assert blog[0].published_date == datetime(2023, 9, 14, 17, 0, tzinfo=UTC)
    assert blog[1].summary == "A small harvest after a late frost."
    outcomes = _parse("jsonfeed_11_microblog.json")
    items = _items(outcomes)
    assert items[2].authors == ("Sam Okafor", "Ife Adeyemi")
    assert (items[2].language or "").startswith("en")  # the item's own (en-GB), region aside
    assert len({i.content_id for i in items}) == 3  # one external_url, three posts
    (error,) = [o for o in outcomes if isinstance(o, ItemError)]
    assert (error.location, error.reason) == (
        "item 4",
        "item has no content_text, content_html or summary",
    )


def _feed_item(**overrides: object) -> IncomingItem:
    base: dict[str, object] = {
        "media_type": "news",
        "title": "Rotterdam opens its new container terminal",
        "published_date": NOW,
        "source": SourceRef("Port News", "portnews.example.com"),
        "url": "https://portnews.example.com/2024/03/rotterdam-terminal",
        "external_id": "harbournotes-link-1031",
        "body": "The port says the terminal adds capacity for two million containers a year.",
        "identified_by_id": True,
    }
    return IncomingItem(**(base | overrides))  # type: ignore[arg-type]


def test_two_versions_in_one_input_are_both_counted(runtime: Runtime) -> None:
    first = _feed_item()
    second = _feed_item(title="Rotterdam opens its new container terminal (updated)")
    with runtime.sessions.write() as session:
        report = store_items(session, [first, second, second], clock=runtime.clock)
    assert (report.accepted, report.updated, report.duplicates) == (1, 1, 1)
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, first.content_id)
        assert row is not None
        assert (row.title, row.version) == (second.title, 2)
    # The stored version again, after another one: nothing is written, both are counted.
    with runtime.sessions.write() as session:
        again = store_items(session, [first, second], clock=runtime.clock)
    assert (again.accepted, again.updated, again.duplicates) == (0, 0, 2)


def test_rows_stored_under_their_url_keep_their_ids(runtime: Runtime) -> None:
    # Stored before entries were identified by their own id: keyed by the canonical URL.
    legacy = _feed_item(identified_by_id=False)
    with runtime.sessions.write() as session:
        store_items(session, [legacy], clock=runtime.clock)
    same = _feed_item()
    other = _feed_item(external_id="harbournotes-link-1032", title="More on Rotterdam")
    assert same.content_id != legacy.content_id
    with runtime.sessions.write() as session:
        report = store_items(session, [same, other], clock=runtime.clock)
    assert (report.accepted, report.duplicates) == (1, 1)  # the same entry, and a new one
    with runtime.sessions.read() as session:
        ids = set(session.scalars(select(ContentItem.id)))
    assert ids == {legacy.content_id, other.content_id}


def test_a_wire_file_without_provider_takes_the_source_given_on_the_command_line(
    cli_env: Settings, runtime: Runtime
) -> None:
    path = str(FIXTURES / "ninjs_2_0_ntb_text.json")  # a bare UUID uri: no provider in it
    runner = CliRunner()
    alone = runner.invoke(app, ["ingest", path, "--no-wait", "--json"])
    assert alone.exit_code == 2
    assert "--source-domain" in json.loads(alone.stdout)["errors"][0]["reason"]
    given = runner.invoke(
        app,
        [
            "ingest",
            path,
            "--no-wait",
            "--json",
            "--source-domain",
            "www.NTB.no",
            "--source-name",
            "NTB",
        ],
    )
    assert given.exit_code == 0, given.output
    assert json.loads(given.stdout)["accepted"] == 1
    with runtime.sessions.read() as session:
        row = session.scalars(select(ContentItem)).one()
    assert (row.source_name, row.source_domain) == ("NTB", "ntb.no")
    bad = runner.invoke(app, ["ingest", path, "--source-name", "NTB"])
    assert bad.exit_code == 1
    assert "--source-domain" in bad.output
