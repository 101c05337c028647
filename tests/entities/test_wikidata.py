"""`herald entities import` of Wikidata's JSON dump format (a sample the test writes itself)."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.db.models.entity import Entity
from herald.enrich.ner import Mention
from herald.entities import repository
from herald.entities.jsonl import ImportProblem
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker
from herald.entities.model import EntityRecord
from herald.entities.wikidata import WikidataFilter, read_wikidata
from herald.runtime import Runtime
from tests.entities.test_cli import env_for

runner = CliRunner()


def item_value(qid: str) -> dict[str, Any]:
    return {
        "value": {"entity-type": "item", "numeric-id": int(qid[1:]), "id": qid},
        "type": "wikibase-entityid",
    }


def statement(prop: str, datavalue: dict[str, Any], rank: str = "normal") -> dict[str, Any]:
    datatype = "wikibase-item" if datavalue["type"] == "wikibase-entityid" else "string"
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": prop,
            "datavalue": datavalue,
            "datatype": datatype,
        },
        "type": "statement",
        "id": f"Q$-{prop}",
        "rank": rank,
    }


def entity(
    qid: str,
    label: str,
    classes: list[str],
    *,
    description: str = "",
    aliases: tuple[str, ...] = (),
    sites: int = 5,
    strings: dict[str, list[str]] | None = None,
    population: int | None = None,
) -> dict[str, Any]:
    """An item shaped like Wikidata's dump entities (``labels``/``claims``/``sitelinks``)."""
    claims: dict[str, list[dict[str, Any]]] = {
        "P31": [statement("P31", item_value(c)) for c in classes]
    }
    for prop, values in (strings or {}).items():
        claims[prop] = [statement(prop, {"value": v, "type": "string"}) for v in values]
    if population is not None:
        claims["P1082"] = [
            statement(
                "P1082",
                {"value": {"amount": f"+{population}", "unit": "1"}, "type": "quantity"},
            )
        ]
    sitelinks = {
        f"{lang}wiki": {"site": f"{lang}wiki", "title": label, "badges": []}
        for lang in ["en", "de", "fr", "es", "it", "nl", "pl"][:sites]
    }
    return {
        "type": "item",
        "id": qid,
        "labels": {
            "en": {"language": "en", "value": label},
            "de": {"language": "de", "value": label + " (de)"},
        },
        "descriptions": {"en": {"language": "en", "value": description}} if description else {},
        "aliases": {"en": [{"language": "en", "value": a} for a in aliases]},
        "claims": claims,
        "sitelinks": sitelinks,
        "lastrevid": 1,
    }


SAMPLE = [
    entity(
        "Q312",
        "Apple Inc.",
        ["Q4830453", "Q891723"],
        description="American multinational technology company",
        aliases=("Apple", "Apple Computer, Inc."),
        sites=7,
        strings={"P249": ["AAPL"], "P946": ["US0378331005"]},
    ),
    entity(
        "Q142",
        "France",
        ["Q3624078", "Q6256"],
        description="country in Western Europe",
        aliases=("French Republic", "FR"),
        sites=7,
        strings={"P297": ["FR"]},
        population=68_000_000,
    ),
    entity(
        "Q457",
        "Christine Lagarde",
        ["Q5"],
        description="French lawyer and politician",
        aliases=("Christine Madeleine Odette Lagarde",),
        sites=6,
    ),
    entity("Q999001", "Tinyville", ["Q515"], sites=1, population=2_000),  # too few site links
    entity("Q25188", "Inception", ["Q11424"], sites=7),  # a film: not a kept class
]


def write_dump(path: Path, items: list[dict[str, Any]], broken: bool = False) -> Path:
    """Wikidata's layout: "[", one entity a line each followed by ",", "]"."""
    lines = [json.dumps(i, ensure_ascii=False) for i in items]
    if broken:
        lines.insert(2, '{"type": "item", "id": "Q1", "labels": {')
    text = "[\n" + ",\n".join(lines) + "\n]\n"
    if path.suffix == ".bz2":
        path.write_bytes(bz2.compress(text.encode()))
    elif path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_read_wikidata_keeps_the_wanted_classes_and_their_identifiers() -> None:
    text = "[\n" + ",\n".join(json.dumps(i) for i in SAMPLE) + "\n]\n"
    parsed = list(read_wikidata(text.splitlines(), WikidataFilter(min_sitelinks=3)))
    records = {r.display_name: r for r in parsed if isinstance(r, EntityRecord)}
    assert set(records) == {"Apple Inc.", "France", "Christine Lagarde"}
    apple = records["Apple Inc."]
    assert apple.entity_kind == "company"
    assert apple.description == "American multinational technology company"
    assert apple.aliases == ("Apple", "Apple Computer, Inc.")
    assert apple.tag_values("ticker") == ["AAPL"]
    assert apple.tag_values("isin") == ["US0378331005"]
    assert apple.first_tag("wikidata") == "Q312"
    assert apple.first_tag("wikipedia") == "https://en.wikipedia.org/wiki/Apple_Inc."
    assert apple.first_tag("sitelinks") == "7"
    france = records["France"]
    assert france.entity_kind == "place"
    assert france.first_tag("place_type") == "country"
    assert france.first_tag("country") == "FR"
    assert france.first_tag("population") == "68000000"
    assert records["Christine Lagarde"].entity_kind == "person"
    # The same dump imported again gives the same ids (the Wikidata id is the stable key).
    again = [r for r in read_wikidata(text.splitlines()) if isinstance(r, EntityRecord)]
    assert {r.display_name: r.id for r in again if r.display_name in records} == {
        n: r.id for n, r in records.items()
    }
    # Without the site-link filter the small city is kept; a film never is.
    names = {r.display_name for r in again}
    assert "Tinyville" in names
    assert "Inception" not in names


def test_read_wikidata_reports_a_broken_line_and_reads_on() -> None:
    lines = ["[", '{"id": "Q1", "labels": {', json.dumps(SAMPLE[1]) + ",", "]"]
    parsed = list(read_wikidata(lines))
    assert isinstance(parsed[0], ImportProblem)
    assert parsed[0].line == 2
    assert isinstance(parsed[1], EntityRecord)
    assert parsed[1].display_name == "France"


@pytest.mark.parametrize("suffix", [".json.bz2", ".json.gz", ".json"])
def test_cli_imports_a_compressed_wikidata_dump(
    settings: Settings, runtime: Runtime, tmp_path: Path, suffix: str
) -> None:
    path = write_dump(tmp_path / f"wikidata{suffix}", SAMPLE, broken=True)
    result = runner.invoke(
        app, ["entities", "import", str(path), "--min-sitelinks", "3"], env=env_for(settings)
    )
    assert result.exit_code == 0, result.output
    assert "imported 3 entities, skipped 1 lines" in result.stdout
    assert "line 4" in result.output  # "[" is line 1, then two entities
    with runtime.sessions.read() as session:
        rows = session.scalars(select(Entity).where(Entity.origin == "import")).all()
        assert {r.display_name for r in rows} == {"Apple Inc.", "France", "Christine Lagarde"}
        apple = next(r for r in rows if r.display_name == "Apple Inc.")
        record = repository.entities_by_ids(session, [apple.id])[0]
    assert record.tag_values("ticker") == ["AAPL"]
    assert "Apple" in record.aliases


def test_cli_class_option_replaces_the_default_classes(
    settings: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    path = write_dump(tmp_path / "films.json.gz", SAMPLE)
    result = runner.invoke(
        app,
        ["entities", "import", str(path), "--class", "Q11424=product"],
        env=env_for(settings),
    )
    assert result.exit_code == 0, result.output
    assert "imported 1 entities" in result.stdout
    with runtime.sessions.read() as session:
        kinds = dict(
            session.execute(
                select(Entity.display_name, Entity.entity_kind).where(Entity.origin == "import")
            ).all()
        )
    assert kinds == {"Inception": "product"}
    bad = runner.invoke(
        app, ["entities", "import", str(path), "--class", "Q5=alien"], env=env_for(settings)
    )
    assert bad.exit_code == 2
    assert "expected QID=KIND" in bad.output


def test_an_imported_entity_that_more_wikis_describe_is_the_likelier_reading() -> None:
    """Two people of one name from a Wikidata import: a bare mention means the one with pages
    in many wikis, as a big city's name means the big city."""
    dump = [
        entity("Q41421", "Michael Jordan", ["Q5"], description="basketball player"),
        entity("Q3308285", "Michael Jordan", ["Q5"], description="statistician"),
        entity("Q7", "Tinyville", ["Q515"]),
    ]
    for item, wikis in zip(dump, (150, 25, 1), strict=True):
        item["sitelinks"] = {f"w{n}wiki": {"site": f"w{n}wiki", "title": "x"} for n in range(wikis)}
    text = "[\n" + ",\n".join(json.dumps(i) for i in dump) + "\n]\n"
    records = [r for r in read_wikidata(text.splitlines()) if isinstance(r, EntityRecord)]
    kb = KnowledgeBase(records)
    by_qid = {r.first_tag("wikidata"): r for r in records}
    player, statistician = by_qid["Q41421"], by_qid["Q3308285"]
    assert kb.prior(player.id) > kb.prior(statistician.id) > 0.5
    assert kb.prior(by_qid["Q7"].id) == 0.3  # one wiki says nothing
    body = "Michael Jordan said on Friday that he would attend the ceremony in the spring."
    start = body.index("Michael Jordan")
    found = [Mention("Michael Jordan", "PERSON", start, start + len("Michael Jordan"))]
    (linked,) = EntityLinker(kb).link("", body, found).entities
    assert linked.entity_id == player.id
