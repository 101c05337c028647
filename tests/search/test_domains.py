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
