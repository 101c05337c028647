"""Target URL rules: every form the acceptance list names is refused, with an actionable reason."""

from __future__ import annotations

import pytest

from herald.core.net import TargetPolicy, check_target_url, parse_allow_networks
from herald.errors import InvalidWebhookUrl
from tests.webhooks.webhook_receiver import FakeResolver

PUBLIC = FakeResolver(
    {
        "hooks.example.com": [["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]],
        "internal.example.com": [["10.1.2.3"]],
        "mixed.example.com": [["93.184.215.14", "172.16.5.4"]],
        "metadata.example.com": [["169.254.169.254"]],
        "cgnat.example.com": [["100.64.0.1"]],
        "v6private.example.com": [["fd00::1"]],
        "mapped.example.com": [["::ffff:192.168.0.1"]],
        "empty.example.com": [[]],
    }
)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/", "scheme must be https"),
        ("ftp://hooks.example.com/", "scheme must be https"),
        ("https://user:pass@hooks.example.com/", "credentials"),
        ("https://user@hooks.example.com/", "credentials"),
        ("https://@hooks.example.com/", "credentials"),
        ("https://localhost/", "localhost"),
        ("https://LOCALHOST./", "localhost"),
        ("https://api.localhost/", "localhost"),
        ("https://127.0.0.1/", "loopback"),
        ("https://127.8.9.10:8443/", "loopback"),
        ("https://[::1]/", "loopback"),
        ("https://10.0.0.1/", "private"),
        ("https://172.16.0.1/", "private"),
        ("https://172.31.255.254/", "private"),
        ("https://192.168.1.1/", "private"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://100.64.0.1/", "CGNAT"),
        ("https://100.127.255.255/", "CGNAT"),
        ("https://0.0.0.0/", "unspecified"),
        ("https://[::]/", "unspecified"),
        ("https://224.0.0.1/", "multicast"),
        ("https://[ff02::1]/", "multicast"),
        ("https://192.0.2.10/", "documentation"),
        ("https://198.51.100.7/", "documentation"),
        ("https://203.0.113.9/", "documentation"),
        ("https://[2001:db8::1]/", "documentation"),
        ("https://198.18.0.1/", "benchmarking"),
        ("https://240.0.0.1/", "reserved"),
        ("https://255.255.255.255/", "broadcast"),
        ("https://[fe80::1]/", "link-local"),
        ("https://[fc00::1]/", "unique-local"),
        ("https://[::ffff:127.0.0.1]/", "loopback"),
        ("https://[::ffff:7f00:1]/", "loopback"),
        ("https://[::ffff:10.0.0.1]/", "private"),
        ("https://[::ffff:169.254.169.254]/", "link-local"),
        ("https://[64:ff9b::10.0.0.1]/", "NAT64"),
        ("https://[2002:7f00:1::]/", "6to4"),
        ("https://[::127.0.0.1]/", "global unicast"),
        ("https://2130706433/", "decimal, octal and hex"),
        ("https://0x7f000001/", "decimal, octal and hex"),
        ("https://0x7f.1/", "decimal, octal and hex"),
        ("https://0x7f.0.0.1/", "decimal, octal and hex"),
        ("https://0177.0.0.1/", "decimal, octal and hex"),
        ("https://017700000001/", "decimal, octal and hex"),
        ("https://127.1/", "decimal, octal and hex"),
        ("https://127.0.1/", "decimal, octal and hex"),
        ("https://010.0.0.1/", "decimal, octal and hex"),
        ("https://8.8.8.8./", "decimal, octal and hex"),
        ("https://3232235777/", "decimal, octal and hex"),
        ("https://[fe80::1%25eth0]/", "zone"),
        ("https://internal.example.com/hook", "outside the public internet"),
        ("https://mixed.example.com/hook", "outside the public internet"),
        ("https://metadata.example.com/", "outside the public internet"),
        ("https://cgnat.example.com/", "outside the public internet"),
        ("https://v6private.example.com/", "outside the public internet"),
        ("https://mapped.example.com/", "outside the public internet"),
        ("https://empty.example.com/", "does not resolve"),
        ("https://unknown.example.com/", "could not be resolved"),
        ("https://hooks.example.com\\@10.0.0.1/", "backslashes"),
        ("https://hooks.example.com /", "whitespace"),
        ("https://hooks.example.com:0/", "port"),
        ("https://hooks..example.com/", "host name is not valid"),
        ("https:///path", "no host"),
        ("", "non-empty"),
    ],
)
def test_forbidden_targets_are_refused_with_a_reason(url: str, reason: str) -> None:
    with pytest.raises(InvalidWebhookUrl) as caught:
        check_target_url(url, TargetPolicy(), PUBLIC)
    assert reason in caught.value.message
    assert caught.value.code == "invalid_webhook_url"
    assert caught.value.status == 400


@pytest.mark.parametrize(
    ("url", "network"),
    [
        ("https://127.0.0.1:8443/herald", "127.0.0.0/8"),
        ("https://10.20.0.5/hook", "10.20.0.0/16"),
        ("https://[::1]/hook", "::1/128"),
        ("https://169.254.169.254/latest/meta-data/", None),
        ("https://internal.example.com/hook", None),
    ],
)
def test_a_refusal_names_the_setting_only_when_it_would_admit_the_address(
    url: str, network: str | None
) -> None:
    with pytest.raises(InvalidWebhookUrl) as caught:
        check_target_url(url, TargetPolicy(), PUBLIC)
    assert ("HERALD_WEBHOOK_ALLOW_NETWORKS" in caught.value.message) is (network is not None)
    if network is not None:  # and the setting, so set, does admit it
        check_target_url(url, TargetPolicy.from_setting(network), PUBLIC)


@pytest.mark.parametrize(
    "url",
    [
        "https://internal.example.com/hook",
        "https://mixed.example.com/hook",
        "https://metadata.example.com/",
        "https://mapped.example.com/",
    ],
)
def test_refusals_of_names_never_echo_internal_addresses(url: str) -> None:
    with pytest.raises(InvalidWebhookUrl) as caught:
        check_target_url(url, TargetPolicy(), PUBLIC)
    assert "not allowed" in caught.value.message
    for internal in ("10.1.2.3", "172.16.5.4", "169.254", "192.168.0.1"):
        assert internal not in caught.value.message


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/herald",
        "https://HOOKS.example.com:8443/a/b?c=d#fragment-not-sent",
        "https://93.184.215.14/hook",
        "https://[2606:4700:4700::1111]/hook",
        "https://[64:ff9b::808:808]/",  # NAT64 form of a public address
    ],
)
def test_public_targets_are_accepted(url: str) -> None:
    target, addresses = check_target_url(url, TargetPolicy(), PUBLIC)
    assert addresses
    assert target.url.startswith("https://")
    assert "#" not in target.url


def test_operator_allowed_networks_admit_private_targets() -> None:
    policy = TargetPolicy.from_setting("127.0.0.0/8, 10.1.0.0/16")
    _, addresses = check_target_url("https://127.0.0.1:8443/", policy, PUBLIC)
    assert [str(a) for a in addresses] == ["127.0.0.1"]
    _, addresses = check_target_url("https://internal.example.com/", policy, PUBLIC)
    assert [str(a) for a in addresses] == ["10.1.2.3"]
    with pytest.raises(InvalidWebhookUrl, match="private"):  # 192.168/16 was not allowed
        check_target_url("https://[::ffff:192.168.0.1]/", policy, PUBLIC)
    with pytest.raises(InvalidWebhookUrl, match="localhost"):  # names stay refused
        check_target_url("https://localhost:8443/", policy, PUBLIC)


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254/",
        "https://metadata.example.com/",
        "https://[::ffff:169.254.169.254]/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[fe80::1]/",
        "https://[fd00:ec2::254]/",
    ],
)
def test_link_local_and_metadata_stay_forbidden_whatever_the_operator_allows(url: str) -> None:
    policy = TargetPolicy.from_setting("0.0.0.0/0,::/0")
    with pytest.raises(InvalidWebhookUrl):
        check_target_url(url, policy, PUBLIC)


def test_allow_network_setting_is_parsed_strictly() -> None:
    assert [str(n) for n in parse_allow_networks(" 127.0.0.0/8 ,, ::1/128 ")] == [
        "127.0.0.0/8",
        "::1/128",
    ]
    assert parse_allow_networks("") == ()
    with pytest.raises(ValueError, match="not a CIDR network: 'loopback'"):
        parse_allow_networks("127.0.0.0/8,loopback")


@pytest.mark.parametrize(
    "url",
    [
        "https://user:s3cr3t-pw@hooks.example.com/",
        "https://s3cr3t-pw@hooks.example.com/",
        "http://user:s3cr3t-pw@hooks.example.com/",
        "https://user:s3cr3t-pw@0x7f.1/",
        "https://user:s3cr3t-pw@evil@hooks.example.com/",
        "https://user:s3cr3t-pw@[::1/",
    ],
)
def test_a_refusal_never_repeats_the_credentials_in_the_url(url: str) -> None:
    """The reason quotes the URL, but not a password in it (error bodies end up in logs)."""
    with pytest.raises(InvalidWebhookUrl) as refused:
        check_target_url(url, TargetPolicy(), PUBLIC)
    assert "s3cr3t" not in refused.value.message
    assert "//***@" in refused.value.message
