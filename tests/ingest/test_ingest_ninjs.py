"""IPTC ninjs 1.x and 2.x wire items (IPTC's own examples)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from herald.ingest.model import IncomingItem, ItemError, SourceRef
from herald.ingest.sources import Document, NinjsAdapter, detect_format

from .conftest import fixture_bytes


def _parse(content: bytes, source: SourceRef | None = None) -> list[IncomingItem | ItemError]:
    doc = Document(content=content, origin="wire.json", source=source)
    return [o for o in NinjsAdapter().parse(doc) if isinstance(o, IncomingItem | ItemError)]


def test_ninjs_1x_ap_text_item() -> None:
    (item,) = _parse(fixture_bytes("ninjs_1_6_complex_ap.json"))
    assert isinstance(item, IncomingItem)
    assert item.media_type == "wire"
    assert item.title == "Captain of wrecked cruise ship on trial in Italy"
    assert item.body
    assert item.body.startswith("GROSSETO, Italy (AP) -- The trial of the captain")
    assert item.authors == ("Paulo Santalucia", "Frances d'Emilio")
    assert item.published_date == datetime(2013, 7, 9, 10, 37, tzinfo=UTC)
    assert item.language == "en"
    assert item.url == "http://ninjs.example.com/newsitems/20130709cplx123"
    assert item.external_id == item.url
    assert item.source.domain == "example.com"


def test_ninjs_2x_dpa_item_from_html_body_and_newsml_urn() -> None:
    (item,) = _parse(fixture_bytes("ninjs_2_0_dpa_text.json"))
    assert isinstance(item, IncomingItem)
    assert item.title == "Faktencheck Derby-Elfmeter: Hat Schiedsrichter Zwayer recht?"
    assert item.body
    assert item.body.startswith("Für Lucien Favre war es «der größte Skandal")
    assert "<p>" not in item.body
    assert item.body.count("\n\n") >= 7
    assert item.authors == ("Christian Hollmann",)  # "Von ..., dpa": prefix and agency dropped
    assert item.published_date == datetime(2019, 5, 10, 14, 2, 28, tzinfo=UTC)
    assert item.source == SourceRef("dpa", "dpa.com")
    assert item.url is None
    assert item.external_id == "urn:newsml:dpa.com:20090101:190510-99-167362"
    assert item.canonical_key == "ext:dpa.com:urn:newsml:dpa.com:20090101:190510-99-167362"
    assert item.language == "de"


def test_ninjs_2x_description_only_item_needs_a_configured_source() -> None:
    (error,) = _parse(fixture_bytes("ninjs_2_0_ntb_text.json"))
    assert isinstance(error, ItemError)
    assert "give the source" in error.reason
    assert error.ref == "Google har kjøpt giganttomt i Skien"
    (item,) = _parse(fixture_bytes("ninjs_2_0_ntb_text.json"), source=SourceRef("NTB", "ntb.no"))
    assert isinstance(item, IncomingItem)
    assert item.published_date == datetime(2019, 8, 9, 9, 30, 4, tzinfo=UTC)  # firstcreated
    assert item.body
    assert item.body.startswith("IT-giganten Google har kjøpt en tomt")
    assert item.authors == ()  # "NTB" is the agency, not a person
    assert item.language == "no"  # Bokmål, as language detection names it


def test_an_array_mixes_good_items_and_per_item_errors() -> None:
    ap = json.loads(fixture_bytes("ninjs_1_6_complex_ap.json"))
    dpa = json.loads(fixture_bytes("ninjs_2_0_dpa_text.json"))
    picture = ap["associations"]["mainpic"]
    withdrawn = dict(dpa, uri="urn:newsml:dpa.com:20090101:190510-99-000001", pubstatus="canceled")
    no_date = {k: v for k, v in dpa.items() if k != "versioncreated"} | {
        "uri": "urn:newsml:dpa.com:x:y"
    }
    outcomes = _parse(json.dumps([ap, picture, withdrawn, dpa, no_date, "junk"]).encode())
    assert [type(o).__name__ for o in outcomes] == [
        "IncomingItem",
        "ItemError",
        "ItemError",
        "IncomingItem",
        "ItemError",
        "ItemError",
    ]
    reasons = [o.reason for o in outcomes if isinstance(o, ItemError)]
    assert reasons == [
        "ninjs type 'picture' carries no text",
        "item is canceled",
        "ninjs item has no firstcreated, contentcreated or versioncreated",
        "expected a ninjs object",
    ]
    assert [o.location for o in outcomes if isinstance(o, ItemError)] == [
        "item 2",
        "item 3",
        "item 5",
        "item 6",
    ]


def test_ninjs_lines_and_detection() -> None:
    lines = (
        b"\n".join(
            json.dumps(json.loads(fixture_bytes(name))).encode()
            for name in ("ninjs_1_6_complex_ap.json", "ninjs_2_0_dpa_text.json")
        )
        + b"\n{broken\n"
    )
    assert detect_format(lines, "wire.txt") == "ninjs"
    outcomes = _parse(lines)
    assert [type(o).__name__ for o in outcomes] == ["IncomingItem", "IncomingItem", "ItemError"]
    assert isinstance(outcomes[2], ItemError)
    assert outcomes[2].line == 3


def test_ninjs_1x_named_headline_and_body_renditions() -> None:
    # The shape of IPTC's ninjs 1.6 examples: the 1.x schema allows any headline_*, body_* and
    # description_* property, and these items carry only headline_main / body_main /
    # body_richtext. They were rejected as "no headline".
    item_json = {
        "uri": "http://wire.example.com/items/1",
        "type": "text",
        "versioncreated": "2013-07-09T10:37:00Z",
        "byline": "Ana Rossi",
        "headline_main": "Port reopens after storm",
        "description_summary": "The port reopened on Tuesday.",
        "body_richtext": "<p>The harbour <b>reopened</b> on Tuesday.</p><p>Ferries resumed.</p>",
        "body_main": "The harbour reopened on Tuesday. Ferries resumed.",
    }
    (item,) = _parse(json.dumps(item_json).encode())
    assert isinstance(item, IncomingItem)
    assert item.title == "Port reopens after storm"
    assert item.body == "The harbour reopened on Tuesday. Ferries resumed."
    assert item.summary == "The port reopened on Tuesday."
    (rich,) = _parse(json.dumps({**item_json, "body_main": None}).encode())
    assert isinstance(rich, IncomingItem)
    assert rich.body == "The harbour reopened on Tuesday.\n\nFerries resumed."
