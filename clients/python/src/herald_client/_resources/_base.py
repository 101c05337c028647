"""The link from a resource namespace to its client, and the value types of parameters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from herald_client._exceptions import RequestNotSentError
from herald_client.models import HeraldModel
from herald_client.models._base import RequestModel
from herald_client.models._enums import EntityKind, MediaType

if TYPE_CHECKING:
    from herald_client._client import AsyncClient, Client

__all__ = [
    "AsyncResource",
    "EntityKind",
    "MediaType",
    "SyncResource",
    "checked",
    "next_offset",
    "unwrap",
]

ModelT = TypeVar("ModelT", bound=HeraldModel)
RequestT = TypeVar("RequestT", bound=RequestModel)


class SyncResource:
    def __init__(self, client: Client) -> None:
        self._client = client


class AsyncResource:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client


def checked(model: type[RequestT], values: Mapping[str, Any]) -> RequestT:
    """A request body or query from a call's arguments, their types checked before anything is
    sent: a wrong one is the server's ``invalid_request``, raised as ``RequestNotSentError``."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise RequestNotSentError(exc) from exc


def unwrap(inner: ModelT, request_id: str | None) -> ModelT:
    """Return ``inner`` (a wrapper's one resource) carrying the response's request id."""
    inner._request_id = request_id
    return inner


def next_offset(page: object) -> int | None:
    value = getattr(page, "next_offset", None)
    return value if isinstance(value, int) else None
