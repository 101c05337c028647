"""Shapes shared by every endpoint: meta, the error envelope, request/response bases."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from herald.core.clock import isoformat_z
from herald.logging import request_id_var

# Every timestamp out is ISO 8601 UTC with "Z" (millisecond precision at most).
UtcTimestamp = Annotated[datetime, PlainSerializer(isoformat_z, return_type=str)]


class RequestModel(BaseModel):
    """Request bodies: unknown fields and wrong types are a 400, never silently accepted."""

    model_config = ConfigDict(extra="forbid", strict=True)


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
