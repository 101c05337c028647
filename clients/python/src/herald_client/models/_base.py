"""Base classes shared by every model, and the date input type of requests."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer, PrivateAttr
from pydantic_core import PydanticCustomError

__all__ = ["DateInput", "HeraldModel", "Meta", "RequestModel", "format_date_input"]


class _WireModel(BaseModel):
    # Unknown fields are kept (``model_extra``), so an older client reads a newer server's
    # responses; the OpenAPI drift test in tests/client keeps the declared fields in step.
    model_config = ConfigDict(extra="allow")


class HeraldModel(_WireModel):
    """A response object. Attribute access for every field; ``model_dump()`` for a dict."""

    _request_id: str | None = PrivateAttr(default=None)

    @property
    def request_id(self) -> str | None:
        """The ``x-request-id`` of the response this object was read from (None when nested)."""
        return self._request_id


class Meta(_WireModel):
    """``meta`` of wrapper bodies."""

    request_id: str


class RequestModel(BaseModel):
    """A request body or query. Types are checked here; the rules are the server's to enforce.

    Extra fields are passed through so the server answers them with its documented error (a
    monitor ``search`` with ``limit`` is ``field_not_allowed``, not a client-side failure).
    """

    model_config = ConfigDict(extra="allow")


def format_date_input(value: date | datetime | str) -> str:
    """``date`` -> ``YYYY-MM-DD``; aware ``datetime`` -> UTC with ``Z``; naive is UTC (as the
    server reads it); strings are sent as given."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.isoformat() + "Z"
    if isinstance(value, date):
        return value.isoformat()
    return value


def _serialize_date_input(value: Any) -> str:
    return format_date_input(value)


def _date_input(value: Any) -> Any:
    # Checked as one type, so a wrong value is one error naming the field (``start_date``), as
    # the server names it, and a number is not read as a Unix time.
    if isinstance(value, date | str):  # a datetime is a date
        return value
    raise PydanticCustomError("date_type", "must be a date, a datetime or an ISO 8601 string")


# A date or datetime accepted by the API: ``date(2026, 11, 1)``, a ``datetime``, or a string
# such as ``"2026-11-01"`` / ``"2026-11-01T08:00:00Z"``.
DateInput = Annotated[
    date | datetime | str,
    BeforeValidator(_date_input),
    PlainSerializer(_serialize_date_input, return_type=str),
]
