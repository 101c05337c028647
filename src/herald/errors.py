"""One error base for every expected failure; the API renders it as the error envelope.

Domain code raises these; it never knows about HTTP beyond the status number it carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


def field_path(*parts: str | int | None) -> str:
    """A field as every error names it: its path in the JSON body or the query string, object
    keys and list indexes joined by dots (``search.media_types.0``, ``dates.2``, ``limit``);
    ``None`` and empty parts are skipped, and nothing at all is the whole body (``body``)."""
    return ".".join(str(p) for p in parts if p is not None and p != "") or "body"


@dataclass(frozen=True, slots=True)
class FieldIssue:
    """One offending field (named by :func:`field_path`) and what is wrong with it."""

    field: str
    message: str


class HeraldError(Exception):
    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"

    def __init__(
        self,
        message: str,
        *,
        details: list[FieldIssue] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []
        self.headers = headers or {}


class InvalidRequest(HeraldError):
    status = 400
    code = "invalid_request"


class DateWindowIncomplete(HeraldError):
    status = 400
    code = "date_window_incomplete"


class DateWindowTooLong(HeraldError):
    status = 400
    code = "date_window_too_long"


class DomainFilterConflict(HeraldError):
    status = 400
    code = "domain_filter_conflict"


class TooManyDomains(HeraldError):
    status = 400
    code = "too_many_domains"


class FieldNotAllowed(HeraldError):
    status = 400
    code = "field_not_allowed"


class TooManyDates(HeraldError):
    status = 400
    code = "too_many_dates"


class InvalidTimezone(HeraldError):
    status = 400
    code = "invalid_timezone"


class InvalidWebhookUrl(HeraldError):
    status = 400
    code = "invalid_webhook_url"


class WebhookUrlRequired(HeraldError):
    status = 400
    code = "webhook_url_required"


class Unauthorized(HeraldError):
    status = 401
    code = "unauthorized"

    def __init__(self, message: str) -> None:
        # A 401 names the scheme that would be accepted (RFC 9110, section 15.5.2).
        super().__init__(message, headers={"www-authenticate": "Bearer"})


class NotFound(HeraldError):
    status = 404
    code = "not_found"


class MethodNotAllowed(HeraldError):
    status = 405
    code = "method_not_allowed"


class MonitorDisabled(HeraldError):
    status = 409
    code = "monitor_disabled"


class DeliveryInFlight(HeraldError):
    status = 409
    code = "delivery_in_flight"


class PayloadTooLarge(HeraldError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(HeraldError):
    status = 415
    code = "unsupported_media_type"


class RateLimited(HeraldError):
    status = 429
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message, headers={"retry-after": str(max(1, retry_after_seconds))})


class InternalError(HeraldError):
    status = 500
    code = "internal_error"


ALL_ERRORS: tuple[type[HeraldError], ...] = (
    InvalidRequest,
    DateWindowIncomplete,
    DateWindowTooLong,
    DomainFilterConflict,
    TooManyDomains,
    FieldNotAllowed,
    TooManyDates,
    InvalidTimezone,
    InvalidWebhookUrl,
    WebhookUrlRequired,
    Unauthorized,
    NotFound,
    MethodNotAllowed,
    MonitorDisabled,
    DeliveryInFlight,
    PayloadTooLarge,
    UnsupportedMediaType,
    RateLimited,
    InternalError,
)
