"""Property tests of the pure SSRF core: address classification and numeric host spellings."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herald.core.net import (
    ALWAYS_FORBIDDEN,
    TargetPolicy,
    canonical_address,
    forbidden_reason,
    parse_https_url,
)
from herald.errors import InvalidWebhookUrl

FORBIDDEN_V4 = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
]
FORBIDDEN_V6 = ["::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "2001:db8::/32"]
ANY_ADDRESS = st.ip_addresses()
ANY_V4 = st.ip_addresses(v=4)


def in_network(draw_net: str) -> st.SearchStrategy[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    return st.ip_addresses(network=draw_net)


forbidden_v4_address = st.sampled_from(FORBIDDEN_V4).flatmap(in_network)
forbidden_v6_address = st.sampled_from(FORBIDDEN_V6).flatmap(in_network)


def mapped(ip: ipaddress.IPv4Address) -> ipaddress.IPv6Address:
    return ipaddress.IPv6Address(f"::ffff:{ip}")


def nat64(ip: ipaddress.IPv4Address) -> ipaddress.IPv6Address:
    return ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) | int(ip))


@given(ANY_ADDRESS)
def test_classification_is_total(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    reason = forbidden_reason(ip)
    assert reason is None or (isinstance(reason, str) and reason)


@given(ANY_ADDRESS)
def test_whatever_is_allowed_is_globally_reachable(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    if forbidden_reason(ip) is not None:
        return
    judged = canonical_address(ip)
    if isinstance(judged, ipaddress.IPv6Address) and judged in ipaddress.ip_network("64:ff9b::/96"):
        judged = ipaddress.IPv4Address(int(judged) & 0xFFFFFFFF)
    assert judged.is_global
    assert not judged.is_multicast
    if isinstance(judged, ipaddress.IPv6Address):
        assert judged in ipaddress.ip_network("2000::/3")


@given(forbidden_v4_address)
def test_forbidden_ipv4_is_forbidden_in_every_spelling(ip: ipaddress.IPv4Address) -> None:
    reason = forbidden_reason(ip)
    assert reason is not None
    assert forbidden_reason(mapped(ip)) == reason  # ::ffff:a.b.c.d is judged as a.b.c.d
    assert forbidden_reason(nat64(ip)) is not None


@given(forbidden_v6_address)
def test_forbidden_ipv6_ranges(ip: ipaddress.IPv6Address) -> None:
    assert forbidden_reason(ip) is not None


@given(ANY_V4.filter(lambda ip: ip.is_global and not ip.is_multicast))
def test_public_ipv4_agrees_across_spellings(ip: ipaddress.IPv4Address) -> None:
    verdict = forbidden_reason(ip)
    assert forbidden_reason(mapped(ip)) == verdict
    assert (forbidden_reason(nat64(ip)) is None) == (verdict is None)


@given(ANY_ADDRESS, st.integers(min_value=0, max_value=32))
def test_an_allowed_network_admits_everything_but_the_always_forbidden(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address, prefix: int
) -> None:
    judged = canonical_address(ip)
    width = 32 if judged.version == 4 else 128
    network = ipaddress.ip_network(f"{judged}/{width - prefix}", strict=False)
    always = any(judged.version == n.version and judged in n for n, _ in ALWAYS_FORBIDDEN)
    reason = forbidden_reason(ip, (network,))
    assert (reason is None) == (not always)


@given(st.sampled_from(["169.254.0.0/16", "fe80::/10"]).flatmap(in_network))
def test_link_local_is_forbidden_even_when_everything_is_allowed(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    everything = TargetPolicy.from_setting("0.0.0.0/0,::/0").allow_networks
    assert forbidden_reason(ip, everything) is not None
    if isinstance(ip, ipaddress.IPv4Address):
        assert forbidden_reason(mapped(ip), everything) is not None
        assert forbidden_reason(nat64(ip), everything) is not None


def odd_spellings(ip: ipaddress.IPv4Address) -> list[str]:
    """The spellings inet_aton() (and so getaddrinfo) reads as ``ip``, canonical form excluded."""
    n = int(ip)
    a, b, c, d = ip.packed
    return [
        str(n),
        hex(n),
        "0" + oct(n)[2:],
        f"{a}.{(b << 16) | (c << 8) | d}",
        f"{a}.{b}.{(c << 8) | d}",
        f"{hex(a)}.{b}.{c}.{d}",
        f"0{oct(a)[2:]}.{b}.{c}.{d}",
        f"{a}.{b}.{c}.0x{d:x}",
        f"{a:04d}.{b}.{c}.{d}",
        f"{ip}.",
    ]


@given(ANY_V4)
def test_numeric_hosts_are_accepted_only_in_canonical_dotted_decimal(
    ip: ipaddress.IPv4Address,
) -> None:
    assert parse_https_url(f"https://{ip}/").literal == ip
    for spelling in odd_spellings(ip):
        with pytest.raises(InvalidWebhookUrl, match="decimal, octal and hex"):
            parse_https_url(f"https://{spelling}/hook")


@given(ANY_V4)
def test_ipv6_literal_forms_of_ipv4_are_judged_as_ipv4(ip: ipaddress.IPv4Address) -> None:
    target = parse_https_url(f"https://[::ffff:{ip}]/")
    assert target.literal is not None
    assert canonical_address(target.literal) == ip
