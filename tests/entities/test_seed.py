"""The bundled seed knowledge base: content, validation of its sources, licences."""

from __future__ import annotations

import gzip
import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType

from herald.entities.kb import seed_path
from herald.entities.model import ENTITY_KINDS, EntityRecord
from herald.entities.names import alias_key, id_key
from tests.enrich.models import seed_records


def named(name: str, kind: str) -> list[EntityRecord]:
    return [r for r in seed_records() if r.display_name == name and r.entity_kind == kind]


def test_the_seed_has_places_companies_people_and_organisations() -> None:
    records = seed_records()
    kinds = Counter(r.entity_kind for r in records)
    assert kinds["place"] > 30_000
    assert kinds["company"] > 1_500
    assert kinds["person"] > 1_000
    assert kinds["organization"] > 40
    assert set(kinds) <= set(ENTITY_KINDS)
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("ent_") for i in ids)


def test_countries_carry_iso_codes_and_common_short_names() -> None:
    (uk,) = named("United Kingdom", "place")
    assert uk.first_tag("country") == "GB"
    assert uk.first_tag("iso3166_alpha3") == "GBR"
    assert {"UK", "Britain"} <= set(uk.aliases)
    (france,) = named("France", "place")
    assert france.first_tag("place_type") == "country"
    assert "French" in france.tag_values("demonym")


def test_every_country_of_a_quarter_million_people_has_its_demonym() -> None:
    """What linking reads "a Liberian nurse" and "Ivorian troops" by; Hong Kong is its own
    adjective, and Serbia and Montenegro and the Netherlands Antilles no longer exist."""
    countries = [r for r in seed_records() if r.first_tag("place_type") == "country"]
    without = {
        r.display_name
        for r in countries
        if int(r.first_tag("population") or 0) >= 250_000 and not r.tag_values("demonym")
    }
    assert without == {"Hong Kong", "Serbia and Montenegro", "Netherlands Antilles"}
    (ivory_coast,) = named("Ivory Coast", "place")
    assert ivory_coast.tag_values("demonym") == ["Ivorian"]


def test_much_reported_regions_carry_their_english_names() -> None:
    (bavaria,) = named("Bavaria", "place")
    assert bavaria.first_tag("iso3166_2") == "DE-BY"
    assert "Bayern" in bavaria.aliases  # the ISO 3166-2 name stays an alias
    for name, code in [("Sicily", "IT-82"), ("Crimea", "UA-43"), ("Aceh", "ID-AC")]:
        (region,) = named(name, "place")
        assert region.first_tag("iso3166_2") == code
    (sichuan,) = named("Sichuan", "place")
    assert "Sichuan Sheng" in sichuan.aliases
    (kordofan,) = named("South Kordofan", "place")
    assert "Southern Kordofan" in kordofan.aliases  # as news writes it


def test_much_reported_areas_that_are_no_country_region_or_city() -> None:
    """Seas, straits, rivers, mountain ranges and parts of the world, each a place of type
    ``area`` with its Wikipedia page; a name shared with a region ("Red Sea", a state of Sudan)
    keeps both."""
    areas = {r.display_name: r for r in seed_records() if r.first_tag("place_type") == "area"}
    assert {
        "Mediterranean Sea",
        "Strait of Hormuz",
        "Gaza Strip",
        "Himalayas",
        "Nile",
        "Nagorno-Karabakh",
    } <= set(areas)
    assert all(r.entity_kind == "place" for r in areas.values())
    assert "Pacific Ring of Fire" in areas["Ring of Fire"].aliases
    assert (
        areas["Middle East"].first_tag("wikipedia") == "https://en.wikipedia.org/wiki/Middle_East"
    )
    assert {r.first_tag("place_type") for r in named("Red Sea", "place")} == {"area", "region"}


def test_companies_carry_tickers_and_isins_and_alphabet_is_google() -> None:
    (alphabet,) = named("Alphabet Inc.", "company")
    assert {"GOOGL", "GOOG"} <= set(alphabet.tag_values("ticker"))
    assert "Google" in alphabet.aliases
    assert alphabet.first_tag("wikipedia") == "https://en.wikipedia.org/wiki/Alphabet_Inc."
    (apple,) = named("Apple Inc.", "company")
    assert apple.tag_values("isin") == ["US0378331005"]


def test_known_errors_of_the_ticker_list_are_repaired() -> None:
    # pytickersymbols lists Deutsche Telekom as Russian, with Rostelecom's codes, in two indices.
    (telekom,) = named("Deutsche Telekom", "company")
    assert telekom.first_tag("country") == "DE"
    assert telekom.tag_values("isin") == ["DE0005557508"]
    assert telekom.tag_values("ticker") == ["DTE.DE"]
    # Headquarters were given as the country in the S&P rows.
    assert all(len(r.first_tag("country") or "XX") == 2 for r in seed_records())


def _build_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_entity_seed", Path(__file__).parents[2] / "scripts" / "build_entity_seed.py"
    )
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_isin_has_a_valid_check_digit() -> None:
    module = _build_module()
    assert module.isin_valid("US0378331005")
    assert not module.isin_valid("US0378331006")
    isins = [v for r in seed_records() for v in r.tag_values("isin")]
    assert isins
    assert all(module.isin_valid(i) for i in isins)


def test_the_seed_licences_are_recorded_beside_it() -> None:
    readme = (seed_path().parent / "README.md").read_text(encoding="utf-8")
    for needle in (
        "GeoNames",
        "CC BY 4.0",
        "pycountry",
        "LGPL",
        "pytickersymbols",
        "CC BY-SA",
        "cbbpy",
        "Apache-2.0",
    ):
        assert needle in readme
    sources = Counter(r.first_tag("source") for r in seed_records())
    assert set(sources) == {"geonames", "pycountry", "pytickersymbols", "herald", "cbbpy"}


def test_city_aliases_are_english_names_only() -> None:
    (kyiv,) = named("Kyiv", "place")
    assert "Kiev" in kyiv.aliases
    (paris,) = [r for r in named("Paris", "place") if r.first_tag("country") == "FR"]
    assert paris.aliases == ()
    assert all(alias_key(a) for r in seed_records() for a in r.aliases)


def test_news_outlets_leagues_teams_and_award_ceremonies_are_known() -> None:
    (ap,) = named("Associated Press", "organization")
    assert "AP" in ap.aliases
    (colts,) = named("Indianapolis Colts", "organization")
    assert colts.first_tag("sport") == "american football"
    assert "Colts" in colts.aliases
    assert colts.tag_values("home") == ["Indianapolis"]
    (pacers,) = named("Indiana Pacers", "organization")
    assert pacers.tag_values("home") == ["Indianapolis", "Indiana"]
    (oscars,) = named("Academy Awards", "event")
    assert "Oscars" in oscars.aliases
    assert named("National Football League", "organization")
    (afc,) = named("American Football Conference", "organization")
    assert afc.aliases == ("AFC",)
    assert afc.first_tag("league") == "National Football League"


def test_well_known_companies_the_index_lists_lack_are_known() -> None:
    (mgm,) = named("Metro-Goldwyn-Mayer", "company")
    assert "MGM" in mgm.aliases
    assert named("Huawei", "company")
    assert named("Twitter", "company")
    (youtube,) = named("YouTube", "product")
    assert youtube.first_tag("maker") == "Alphabet Inc."
    (disney,) = named("The Walt Disney Company", "company")
    assert "Disney" in disney.aliases
    assert disney.first_tag("ticker")  # the listed company, not a second Disney


def test_college_teams_are_known_by_school_and_unique_nickname() -> None:
    (creighton,) = named("Creighton Bluejays", "organization")
    assert creighton.tag_values("home") == ["Creighton"]
    assert creighton.first_tag("league") == "NCAA Division I"
    assert creighton.aliases == ("Bluejays",)
    (wichita,) = named("Wichita State Shockers", "organization")
    assert wichita.tag_values("home") == ["Wichita State", "Wichita St."]
    # A nickname many teams share names none of them.
    college = [r for r in seed_records() if r.first_tag("source") == "cbbpy"]
    assert len(college) > 300
    assert not any("Wildcats" in r.aliases or "Tigers" in r.aliases for r in college)
    nicknames = Counter(alias_key(a) for r in seed_records() for a in r.aliases)
    assert all(nicknames[alias_key(a)] == 1 for r in college for a in r.aliases)


def test_ids_of_people_and_curated_organisations_come_from_their_first_keys() -> None:
    """A rebuild of the seed keeps every id: keys derived from a name use the key ids were
    first derived with ("C. S. Venkatakrishnan" -> "c s venkatakrishnan")."""
    with gzip.open(seed_path(), "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    people = [r for r in rows if r["entity_kind"] == "person"]
    assert len(people) > 2000
    venkat = [r for r in people if r["display_name"] == "C. S. Venkatakrishnan"]
    assert [r["key"] for r in venkat] == ["person:c s venkatakrishnan"]
    officers = [r for r in people if not r["key"].startswith("herald:")]
    assert all(r["key"] == f"person:{id_key(r['display_name'])}" for r in officers)
    curated = [r for r in rows if r["key"].startswith("herald:")]
    assert len(curated) > 500
    assert all(r["key"] == f"herald:{id_key(r['display_name']).replace(' ', '-')}" for r in curated)


def test_the_seed_build_reads_cbbpys_team_map(tmp_path: Path) -> None:
    module = _build_module()
    (tmp_path / "cbbpy").mkdir()
    (tmp_path / "cbbpy" / "mens_team_map.csv").write_text(
        "season,id,team,location,conference,conference_abb\n"
        "2024,156,Creighton Bluejays,Creighton,Big East Conference,bige\n"
        "2025,156,Creighton Bluejays,Creighton,Big East Conference,bige\n"
        "2025,2724,Wichita State Shockers,Wichita State,American Athletic Conference,aac\n"
        "2025,2,Auburn Tigers,Auburn,Southeastern Conference,sec\n"
        "2025,2390,Miami Hurricanes,Miami,Atlantic Coast Conference,acc\n"
        "2025,2633,Tennessee Volunteers,Tennessee,Southeastern Conference,sec\n"
        "2025,9999,Team Without Its School,Somewhere,Nowhere Conference,none\n",
        encoding="utf-8",
    )
    teams = {t["display_name"]: t for t in module.build_college_teams(tmp_path, module.Report())}
    assert len(teams) == 6  # one season's rows
    assert teams["Creighton Bluejays"]["aliases"] == ["Bluejays"]
    assert teams["Creighton Bluejays"]["key"] == "espn:mens-college-basketball:156"
    assert {"key": "home", "value": "Wichita St."} in teams["Wichita State Shockers"]["tags"]
    # The NHL's Carolina Hurricanes have that nickname: no alias.
    assert teams["Miami Hurricanes"]["aliases"] == []
    assert teams["Team Without Its School"]["aliases"] == []
    assert {"key": "source", "value": "cbbpy"} in teams["Auburn Tigers"]["tags"]


def test_british_counties_are_known_and_iso_names_carry_no_annotations() -> None:
    (somerset,) = [r for r in named("Somerset", "place") if r.first_tag("country") == "GB"]
    assert somerset.first_tag("place_type") == "region"
    assert [r.first_tag("country") for r in named("Surrey", "place")].count("GB") == 1
    # A county named as a city is that city's entity only ("Derby", "York").
    assert all(r.first_tag("place_type") == "city" for r in named("Derby", "place"))
    (wales,) = named("Wales", "place")
    assert wales.aliases == ("Cymru",)
    assert named("Southern Nations, Nationalities and Peoples", "place")
    assert not [r.display_name for r in seed_records() if "[" in r.display_name]


def test_public_agencies_and_well_known_software_are_known() -> None:
    (usgs,) = named("United States Geological Survey", "organization")
    assert {"USGS", "U.S. Geological Survey"} <= set(usgs.aliases)
    (justice,) = named("United States Department of Justice", "organization")
    assert "Justice Department" in justice.aliases
    (postgres,) = named("PostgreSQL", "product")
    assert "Postgres" in postgres.aliases
    (github,) = named("GitHub", "product")
    assert github.first_tag("maker") == "Microsoft"
    assert named("Hugging Face", "company")
    (houthis,) = named("Houthis", "organization")
    assert {"Houthi", "Ansar Allah"} <= set(houthis.aliases)
    # Words of everyday English are left out: "Rust", "Go", "Swift" and "Java" are no products.
    assert not [r for r in seed_records() if r.display_name in ("Rust", "Go", "Swift", "Java")]
