"""The bundled seed knowledge base: content, validation of its sources, licences."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from herald.entities.kb import seed_path
from herald.entities.model import ENTITY_KINDS, EntityRecord
from herald.entities.names import alias_key
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


def test_every_isin_has_a_valid_check_digit() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_entity_seed", Path(__file__).parents[2] / "scripts" / "build_entity_seed.py"
    )
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.isin_valid("US0378331005")
    assert not module.isin_valid("US0378331006")
    isins = [v for r in seed_records() for v in r.tag_values("isin")]
    assert isins
    assert all(module.isin_valid(i) for i in isins)


def test_the_seed_licences_are_recorded_beside_it() -> None:
    readme = (seed_path().parent / "README.md").read_text(encoding="utf-8")
    for needle in ("GeoNames", "CC BY 4.0", "pycountry", "LGPL", "pytickersymbols", "CC BY-SA"):
        assert needle in readme
    sources = Counter(r.first_tag("source") for r in seed_records())
    assert set(sources) == {"geonames", "pycountry", "pytickersymbols", "herald"}


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
