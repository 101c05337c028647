import pytest

from herald.search.domains import domain_and_parents, normalize_domain


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Example.COM", "example.com"),
        ("https://www.example.com/path?q=1", "example.com"),
        ("news.example.com:8443", "news.example.com"),
        ("example.com.", "example.com"),
        ("www.com", "www.com"),
        ("[2001:DB8:0::1]", "2001:db8::1"),
        ("https://[2001:db8::1]:8443/feed", "2001:db8::1"),
        ("2001:0db8::0001", "2001:db8::1"),
        ("[2001:db8::zz]", "[2001:db8::zz]"),  # not an address: kept, and refused as a filter
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize_domain(raw) == expected


def test_parents_stop_at_the_registrable_domain() -> None:
    assert domain_and_parents("live.news.bbc.co.uk") == [
        "live.news.bbc.co.uk",
        "news.bbc.co.uk",
        "bbc.co.uk",
    ]
    assert domain_and_parents("www.example.com") == ["example.com"]
    assert domain_and_parents("localhost") == ["localhost"]
    assert domain_and_parents("") == []
    # An address has no parents (an IPv4 address is not a name under ``2.1``).
    assert domain_and_parents("192.0.2.1") == ["192.0.2.1"]
    assert domain_and_parents("2001:db8:0:0::1") == ["2001:db8::1"]
