"""URL canonicalisation and registrable domains."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.provisional import urls

from herald.ingest.model import canonical_key, content_id_for_key
from herald.ingest.urls import InvalidUrl, canonical_url, normalise_domain, registrable_domain

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
