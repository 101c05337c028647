"""Shapes shared by every endpoint: meta, the error envelope, request/response bases."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    model_validator,
)

from herald.core.clock import isoformat_z
from herald.logging import request_id_var

# Every timestamp out is ISO 8601 UTC with "Z" (millisecond precision at most).
UtcTimestamp = Annotated[
    datetime,
    PlainSerializer(isoformat_z, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}, mode="serialization"),
]

# What the OpenAPI document says of inputs the routes validate themselves (the rules and their
# error codes stay in one validator each; these schemas only state them for clients and fuzzers).
DATE_SCHEMA: dict[str, Any] = {"type": "string", "format": "date"}
DATE_OR_DATETIME_SCHEMA: dict[str, Any] = {
    "anyOf": [DATE_SCHEMA, {"type": "string", "format": "date-time"}]
}
# The characters Python's str.strip() takes for white space, which is what the server calls
# blank; spelled out because JSON Schema's "\s" is not the same set (it has no U+001C-U+001F
# nor U+0085, and has U+FEFF).
SPACE_CHARS = (
    "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
)
NOT_BLANK_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "pattern": f"[^{SPACE_CHARS}]",
}
MEDIA_TYPE_SCHEMA: dict[str, Any] = {"type": "string", "enum": ["news", "wire", "podcast"]}
DateText = Annotated[str, WithJsonSchema(DATE_OR_DATETIME_SCHEMA)]
DayText = Annotated[str, WithJsonSchema(DATE_SCHEMA)]


class RequestModel(BaseModel):
    """Request bodies: unknown fields and wrong types are a 400, never silently accepted.

    A whole number written with a fraction (``10.0``) is that integer, as in JSON Schema; a
    string is never a number (``"10"`` stays a 400).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _whole_numbers(cls, data: Any) -> Any:
        return whole_numbers(data)


def whole_numbers(value: Any) -> Any:
    """``value`` with every integral float (``97.0``) as an int, at any depth."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


class ResponseModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Meta(ResponseModel):
    request_id: str = Field(description="The request id, also in the x-request-id header.")


def current_meta() -> Meta:
    return Meta(request_id=request_id_var.get() or "")


class ErrorDetail(ResponseModel):
    field: str
    message: str


class ErrorBody(ResponseModel):
    error: str = Field(description="Machine-readable error code (see docs/api.md).")
    message: str
    meta: Meta
    details: list[ErrorDetail] | None = None


class PageMeta(ResponseModel):
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool


def json_schema_extra(example: dict[str, Any]) -> dict[str, Any]:
    return {"examples": [example]}


# A query parameter of media types: repeated, or comma-separated in one value.
MediaTypeList = Annotated[
    list[str],
    WithJsonSchema(
        {
            "type": "array",
            "items": {
                "type": "string",
                "pattern": "^(news|wire|podcast)(,(news|wire|podcast))*$",
            },
        }
    ),
]
