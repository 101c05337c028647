"""The exception tree. Every exception the client raises derives from ``HeraldError``.

::

    HeraldError
    ├── APIConnectionError            the request did not get an HTTP response
    │   └── APITimeoutError           ... because a timeout expired
    ├── APIResponseValidationError    a 2xx body that does not match the client's models
    └── APIStatusError                the server answered with an error status (the error envelope)
        ├── InvalidRequestError       400 (``code`` says which rule; subclasses per stable code)
        │   ├── RequestNotSentError           invalid_request found by the client: nothing sent
        │   ├── DateWindowIncompleteError     date_window_incomplete
        │   ├── DateWindowTooLongError        date_window_too_long
        │   ├── DomainFilterConflictError     domain_filter_conflict
        │   ├── TooManyDomainsError           too_many_domains
        │   ├── FieldNotAllowedError          field_not_allowed
        │   ├── TooManyDatesError             too_many_dates
        │   ├── InvalidTimezoneError          invalid_timezone
        │   ├── InvalidWebhookUrlError        invalid_webhook_url
        │   └── WebhookUrlRequiredError       webhook_url_required
        ├── AuthenticationError       401 unauthorized
        ├── NotFoundError             404 not_found
        ├── MethodNotAllowedError     405 method_not_allowed
        ├── ConflictError             409
        │   ├── MonitorDisabledError          monitor_disabled
        │   └── DeliveryInFlightError         delivery_in_flight
        ├── PayloadTooLargeError      413 payload_too_large
        ├── UnsupportedMediaTypeError 415 unsupported_media_type
        ├── RateLimitError            429 rate_limited (``retry_after`` in seconds)
        └── ServerError               5xx (internal_error, or a proxy's 502/503/504)

``herald_client.webhooks.WebhookVerificationError`` (a ``HeraldError`` too) is raised by the
webhook verification helper.
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "APIConnectionError",
    "APIResponseValidationError",
    "APIStatusError",
    "AuthenticationError",
    "ConflictError",
    "DateWindowIncompleteError",
    "DateWindowTooLongError",
    "DeliveryInFlightError",
    "DomainFilterConflictError",
    "ErrorDetail",
    "FieldNotAllowedError",
    "HeraldError",
    "InvalidRequestError",
    "InvalidTimezoneError",
    "InvalidWebhookUrlError",
    "MethodNotAllowedError",
    "MonitorDisabledError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RateLimitError",
    "RequestNotSentError",
    "ServerError",
    "TooManyDatesError",
    "TooManyDomainsError",
    "UnsupportedMediaTypeError",
    "WebhookUrlRequiredError",
]


class ErrorDetail(BaseModel):
    """One offending field of a request, e.g. ``search.start_date``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    field: str
    message: str


class HeraldError(Exception):
    """Base of everything this package raises."""


class APIConnectionError(HeraldError):
    """No HTTP response: the connection failed or broke. ``request`` is what was sent."""

    def __init__(self, message: str, *, request: httpx.Request) -> None:
        super().__init__(message)
        self.message = message
        self.request = request


class APITimeoutError(APIConnectionError):
    """The connect, read, write or pool timeout expired."""


class APIResponseValidationError(HeraldError):
    """The server answered 2xx with a body the client's models cannot read (a version skew)."""

    def __init__(self, message: str, *, response: httpx.Response) -> None:
        super().__init__(message)
        self.message = message
        self.response = response
        self.status_code = response.status_code
        self.request_id: str | None = response.headers.get("x-request-id")


class APIStatusError(HeraldError):
    """The server answered with an error status and (usually) the error envelope.

    ``code`` is the envelope's ``error`` (``not_found``, ``date_window_too_long``, ...),
    ``details`` lists the offending fields, ``request_id`` is ``meta.request_id`` (or the
    ``x-request-id`` header): quote it when asking an operator to look at the logs.
    ``response`` is None only for a ``RequestNotSentError``: the client refused the request
    itself, as the server would (status 400), and sent nothing.
    """

    status_code: int
    code: str

    def __init__(
        self,
        message: str,
        *,
        response: httpx.Response | None,
        code: str,
        details: list[ErrorDetail] | None = None,
        request_id: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.response = response
        self.status_code = 400 if response is None else response.status_code
        self.code = code
        self.details: list[ErrorDetail] = details or []
        self.request_id = request_id
        self.body = body

    def __str__(self) -> str:
        sent = self.response is not None
        text = f"{self.status_code} {self.code}" if sent else f"{self.code} (not sent)"
        text += f": {self.message}"
        if self.details:
            text += " (" + "; ".join(f"{d.field}: {d.message}" for d in self.details) + ")"
        if self.request_id:
            text += f" [request_id={self.request_id}]"
        return text


class InvalidRequestError(APIStatusError):
    """400: the request broke a rule; ``code`` names it (``invalid_request`` for the generic)."""


class RequestNotSentError(InvalidRequestError):
    """``invalid_request`` found by the client before sending: nothing reached the server.

    An argument of the wrong type (a ``limit`` of ``"ten"``, a media type that does not exist,
    a monitor search without ``query``) is refused as the server refuses it: code
    ``invalid_request``, ``details`` naming each field as the server names it (``limit``,
    ``schedule.frequency``, ``entity_kinds.0``). ``response`` and ``request_id`` are None.
    """

    def __init__(self, error: ValidationError) -> None:
        details = [
            ErrorDetail(field=_field(issue["loc"]), message=_problem(issue["type"], issue["msg"]))
            for issue in error.errors(include_url=False, include_input=False)
        ]
        summary = "; ".join(f"{d.field}: {d.message}" for d in details[:5])
        super().__init__(
            f"invalid request: {summary}", response=None, code="invalid_request", details=details
        )


def _field(loc: tuple[int | str, ...]) -> str:
    """A field as the server names it: ``schedule.frequency``, ``dates.0``."""
    # A validator's own step (``function-after[...]``) is no field.
    return ".".join(str(part) for part in loc if "[" not in str(part)) or "body"


def _problem(kind: str, message: str) -> str:
    """What is wrong, worded as the server words it for the same kind of error."""
    return {"missing": "field required", "extra_forbidden": "unknown field"}.get(kind, message)


class DateWindowIncompleteError(InvalidRequestError):
    """Only one of ``start_date`` / ``end_date`` was given."""


class DateWindowTooLongError(InvalidRequestError):
    """An explicit window over 60 days, or a start after the end."""


class DomainFilterConflictError(InvalidRequestError):
    """Both ``include_domains`` and ``exclude_domains``."""


class TooManyDomainsError(InvalidRequestError):
    """More than 10 domains in a filter."""


class FieldNotAllowedError(InvalidRequestError):
    """A monitor search with a window or limit; a PATCH with ``search`` or ``status``."""


class TooManyDatesError(InvalidRequestError):
    """A backfill with more than 100 dates."""


class InvalidTimezoneError(InvalidRequestError):
    """A schedule timezone that is not an IANA name."""


class InvalidWebhookUrlError(InvalidRequestError):
    """A webhook target that is not HTTPS, has credentials or is not a public address."""


class WebhookUrlRequiredError(InvalidRequestError):
    """PUT /v1/webhooks without ``url`` while no target exists."""


class AuthenticationError(APIStatusError):
    """401: the key is missing, unknown or revoked (or two different keys were sent)."""


class NotFoundError(APIStatusError):
    """404: no such resource in this workspace (ids of other workspaces look the same)."""


class MethodNotAllowedError(APIStatusError):
    """405: the route exists but not with this method."""


class ConflictError(APIStatusError):
    """409: the resource's state does not allow the operation."""


class MonitorDisabledError(ConflictError):
    """Run-now or backfill on a disabled monitor."""


class DeliveryInFlightError(ConflictError):
    """The webhook delivery is being attempted right now: replay it after that attempt."""


class PayloadTooLargeError(APIStatusError):
    """413: the body is over 1 MiB."""


class UnsupportedMediaTypeError(APIStatusError):
    """415: the body is not ``application/json``."""


class RateLimitError(APIStatusError):
    """429: over the rate limit. ``retry_after`` is the server's ``retry-after`` in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(APIStatusError):
    """5xx: a server-side failure (never caused by the request's content)."""


# The server's stable error codes (docs/api.md "Errors") to the most specific class.
ERRORS_BY_CODE: dict[str, type[APIStatusError]] = {
    "invalid_request": InvalidRequestError,
    "date_window_incomplete": DateWindowIncompleteError,
    "date_window_too_long": DateWindowTooLongError,
    "domain_filter_conflict": DomainFilterConflictError,
    "too_many_domains": TooManyDomainsError,
    "field_not_allowed": FieldNotAllowedError,
    "too_many_dates": TooManyDatesError,
    "invalid_timezone": InvalidTimezoneError,
    "invalid_webhook_url": InvalidWebhookUrlError,
    "webhook_url_required": WebhookUrlRequiredError,
    "unauthorized": AuthenticationError,
    "not_found": NotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "monitor_disabled": MonitorDisabledError,
    "delivery_in_flight": DeliveryInFlightError,
    "payload_too_large": PayloadTooLargeError,
    "unsupported_media_type": UnsupportedMediaTypeError,
    "rate_limited": RateLimitError,
    "internal_error": ServerError,
}

# When the code is unknown (a newer server, or a proxy's plain-text error page).
ERRORS_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    429: RateLimitError,
}


def error_class(status_code: int, code: str) -> type[APIStatusError]:
    """The class for an error response: by error code when it agrees with the status."""
    by_code = ERRORS_BY_CODE.get(code)
    by_status = ERRORS_BY_STATUS.get(status_code)
    if status_code >= 500:
        return ServerError
    if by_code is not None and (by_status is None or issubclass(by_code, by_status)):
        return by_code
    return by_status or APIStatusError
