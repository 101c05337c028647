"""The link from a resource namespace to its client, and the value types of parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from herald_client.models import HeraldModel
from herald_client.models._enums import EntityKind, MediaType

if TYPE_CHECKING:
    from herald_client._client import AsyncClient, Client

__all__ = ["AsyncResource", "EntityKind", "MediaType", "SyncResource", "next_offset", "unwrap"]

ModelT = TypeVar("ModelT", bound=HeraldModel)


class SyncResource:
    def __init__(self, client: Client) -> None:
        self._client = client


class AsyncResource:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client


def unwrap(inner: ModelT, request_id: str | None) -> ModelT:
    """Return ``inner`` (a wrapper's one resource) carrying the response's request id."""
    inner._request_id = request_id
    return inner


def next_offset(page: object) -> int | None:
    value = getattr(page, "next_offset", None)
    return value if isinstance(value, int) else None
