"""Identifiers: prefixed, URL-safe strings (stable prefixes) and UUIDs for runs and tasks."""

from __future__ import annotations

import hashlib
import secrets
import uuid

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_BODY_LENGTH = 20  # 20 base-36 chars ~ 103 bits

PREFIXES = frozenset(
    {"cnt", "del", "ent", "clu", "clm", "mon", "evt", "team", "art", "src", "key", "pod", "ep"}
)


def _encode(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        number, rem = divmod(number, 36)
        chars.append(_ALPHABET[rem])
    return "".join(reversed(chars))


def new_id(prefix: str) -> str:
    """A random identifier such as ``mon_3k9...``."""
    _check(prefix)
    return f"{prefix}_{_encode(secrets.randbits(128), _BODY_LENGTH)}"


def stable_id(prefix: str, key: str) -> str:
    """A deterministic identifier: the same ``key`` always gives the same id."""
    _check(prefix)
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return f"{prefix}_{_encode(int.from_bytes(digest[:16], 'big'), _BODY_LENGTH)}"


def new_uuid() -> str:
    return str(uuid.uuid4())


def _check(prefix: str) -> None:
    if prefix not in PREFIXES:
        raise ValueError(f"unknown id prefix {prefix!r}")
