"""URL canonicalisation and registrable domains."""

from __future__ import annotations

import unicodedata
from typing import Literal
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.provisional import urls

from herald.ingest.model import canonical_key, content_id_for_key
from herald.ingest.urls import (
    InvalidUrl,
    canonical_url,
    legacy_canonical_urls,
    normalise_domain,
    pre_nfc_canonical_url,
    registrable_domain,
)

SAME_ARTICLE = [
    "https://example.com/news/story",
    "http://example.com/news/story",
    "HTTPS://WWW.Example.COM/news/story",
    "https://example.com:443/news/story",
    "http://example.com:80/news/story/",
    "https://example.com/news/story#comments",
    "https://example.com/news/story?utm_source=rss&utm_medium=feed&utm_campaign=x",
    "https://example.com/news/story?fbclid=IwAR0abc&gclid=xyz&mc_cid=1&_ga=2.1",
    "https://example.com/news/./story",
    "https://example.com/news/x/../story",
    "https://example.com/news/story/amp",
    "https://example.com/news/story/amp/",
    "https://example.com/amp/news/story",
    "https://example.com/news/story?amp=1",
    "https://example.com/news/story?outputType=amp",
    "https://amp.example.com/news/story",
    "https://m.example.com/news/story",
    "https://example-com.cdn.ampproject.org/c/s/example.com/news/story",
    "https://user:secret@example.com/news/story",
    "https://example.com./news/story",
]


@pytest.mark.parametrize("url", SAME_ARTICLE)
def test_variants_of_one_article_share_a_canonical_url(url: str) -> None:
    assert canonical_url(url) == "https://example.com/news/story"


def test_meaningful_query_parameters_are_kept_and_sorted() -> None:
    assert (
        canonical_url("https://example.com/article?page=2&id=17&utm_source=x")
        == "https://example.com/article?id=17&page=2"
    )
    assert canonical_url("https://example.com/a?id=1") != canonical_url(
        "https://example.com/a?id=2"
    )


def test_amp_suffix_forms() -> None:
    assert canonical_url("https://example.com/2024/story.amp.html") == (
        "https://example.com/2024/story.html"
    )
    assert canonical_url("https://example.com/2024/story.amp") == "https://example.com/2024/story"


def test_path_case_and_non_default_ports_are_kept() -> None:
    assert canonical_url("https://example.com/News/Story") == "https://example.com/News/Story"
    assert canonical_url("http://example.com:8080/a") == "https://example.com:8080/a"


def test_percent_escapes_are_normalised() -> None:
    assert canonical_url("https://example.com/caf%C3%A9") == canonical_url(
        "https://example.com/café"
    )
    assert canonical_url("https://example.com/%7Euser") == canonical_url(
        "https://example.com/~user"
    )


CAFE = "https://example.com/caf%C3%A9?q=cr%C3%A8me"


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/café?q=crème",  # composed letters, as they are
        CAFE,  # composed, escaped
        "https://example.com/caf%c3%a9?q=cr%c3%a8me",
        "https://example.com/cafe\u0301?q=cre\u0300me",  # e plus a combining accent
        "https://example.com/cafe%CC%81?q=cre%CC%80me",  # the same, escaped
        "https://example.com/cafe%CC%81?q=cr%C3%A8me",  # mixed
    ],
)
def test_composed_and_decomposed_letters_are_one_url(url: str) -> None:
    assert canonical_url(url) == CAFE


@given(st.text(min_size=1, max_size=12), st.text(max_size=12))
def test_any_text_composed_or_decomposed_is_one_url(segment: str, value: str) -> None:
    def spelled(form: Literal["NFC", "NFD"]) -> str:
        path = quote(unicodedata.normalize(form, segment), safe="")
        return f"https://example.com/a/{path}?q={quote(unicodedata.normalize(form, value))}"

    nfc = canonical_url(spelled("NFC"))
    assert canonical_url(spelled("NFD")) == nfc
    assert canonical_url(nfc) == nfc


@pytest.mark.parametrize(
    ("path", "canonical"),
    [
        ("/a%FFe%CC%81", "/a%FF%C3%A9"),  # a byte that is no UTF-8 stays as it is
        ("/a%C3", "/a%C3"),  # a cut sequence too
        ("/a%C0%AF", "/a%C0%AF"),  # an overlong one too
        ("/a%2Fe%CC%81", "/a%2F%C3%A9"),  # an escaped slash stays a character of the segment
        ("/a%3A%CC%8A", "/a%3A%CC%8A"),  # nothing composes with an escaped character
        ("/a%CD%BEb", "/a%3Bb"),  # U+037E is ";" in NFC: escaped, never a delimiter
        ("/100%", "/100%"),
    ],
)
def test_normalisation_touches_only_the_text_utf_8_escapes_spell(path: str, canonical: str) -> None:
    assert canonical_url(f"https://example.com{path}") == f"https://example.com{canonical}"


def test_the_canonical_forms_of_before_text_was_normalised() -> None:
    earlier = "https://example.com/cafe%CC%81?q=cre%CC%80me"  # the text as given
    assert pre_nfc_canonical_url("https://example.com/cafe\u0301?q=cre\u0300me") == earlier
    assert pre_nfc_canonical_url(CAFE) == CAFE
    # Items stored under those forms are looked up under them: the URL's as given, and its
    # decomposed spelling's (an item stored when its source spelled it so).
    assert legacy_canonical_urls("https://example.com/cafe\u0301?q=cre\u0300me") == (earlier,)
    assert legacy_canonical_urls("https://example.com/café?q=crème") == (earlier,)
    assert legacy_canonical_urls("https://example.com/a?q=b") == ()
    assert legacy_canonical_urls("https://example.com/a%2Fb") == ()


def test_subdomains_other_than_www_m_amp_are_kept() -> None:
    assert canonical_url("https://news.bbc.co.uk/a") == "https://news.bbc.co.uk/a"
    # "www." is only stripped when a registrable name remains.
    assert canonical_url("https://www.co.uk/a") == "https://www.co.uk/a"


@pytest.mark.parametrize(
    "bad", ["ftp://example.com/a", "mailto:x@example.com", "not a url", "https:///a", ""]
)
def test_non_http_urls_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidUrl):
        canonical_url(bad)


@given(urls())
def test_canonicalisation_is_idempotent(url: str) -> None:
    try:
        once = canonical_url(url)
    except InvalidUrl:
        return
    assert canonical_url(once) == once


@given(urls(), st.sampled_from(["utm_source=a", "fbclid=b", "gclid=c", "utm_campaign=d"]))
def test_tracking_parameters_never_change_the_key(url: str, tracking: str) -> None:
    try:
        base = canonical_url(url)
    except InvalidUrl:
        return
    stripped = url.split("#", 1)[0]
    joined = f"{stripped}{'&' if '?' in stripped else '?'}{tracking}"
    assert canonical_url(joined) == base


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("news.bbc.co.uk", "bbc.co.uk"),
        ("WWW.Reuters.COM", "reuters.com"),
        ("articles.latimes.com", "latimes.com"),
        ("sportsillustrated.cnn.com", "cnn.com"),
        ("octocat.github.io", "octocat.github.io"),
        ("example.com.", "example.com"),
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
    ],
)
def test_registrable_domain(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


def test_public_suffix_has_no_registrable_domain() -> None:
    assert registrable_domain("co.uk") is None
    with pytest.raises(InvalidUrl):
        normalise_domain("co.uk")


@pytest.mark.parametrize(
    "given_domain", ["bbc.co.uk", "www.BBC.co.uk", "https://www.bbc.co.uk/news", "news.bbc.co.uk"]
)
def test_source_domains_are_normalised(given_domain: str) -> None:
    assert normalise_domain(given_domain) == "bbc.co.uk"


def test_an_internationalised_domain_is_stored_in_its_ascii_form() -> None:
    assert normalise_domain("Bücher.de") == "xn--bcher-kva.de"
    assert normalise_domain("https://www.bücher.de/shop") == "xn--bcher-kva.de"


@pytest.mark.parametrize("junk", ["°", "👍🏻", "¡hola.com", "$defs", "a b.com", "bbc.co.uk?x"])
def test_symbols_and_spaces_are_not_domains(junk: str) -> None:
    with pytest.raises(InvalidUrl, match="not a domain"):
        normalise_domain(junk)


def test_content_ids_are_stable_and_keyed_on_canonical_url() -> None:
    a = content_id_for_key(
        canonical_key(canonical_url("http://www.example.com/a?utm_source=x"), "example.com", None)
    )
    b = content_id_for_key(
        canonical_key(canonical_url("https://example.com/a/"), "other.org", "guid-9")
    )
    assert a == b
    assert a.startswith("cnt_")
    # Without a URL, the source domain and external id are the key.
    c = content_id_for_key(canonical_key(None, "ap.org", "urn:1"))
    assert c == content_id_for_key(canonical_key(None, "AP.org", " urn:1 "))
    assert c != content_id_for_key(canonical_key(None, "reuters.com", "urn:1"))
