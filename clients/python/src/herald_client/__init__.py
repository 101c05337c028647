"""Typed Python client for the Herald content intelligence API.

::

    import herald_client

    with herald_client.Client(base_url="http://127.0.0.1:8080", api_key="...") as client:
        page = client.content.search(query="central bank rates", limit=5)
        for result in page.results:
            print(result.score, result.content_item.title)

``Client`` blocks; ``AsyncClient`` is the same with ``await``. Models are in
``herald_client.models``; webhook verification in ``herald_client.webhooks``; every exception
derives from ``herald_client.HeraldError`` (see ``herald_client._exceptions`` for the tree).
"""

from __future__ import annotations

from herald_client import models, webhooks
from herald_client._base import DEFAULT_BASE_URL
from herald_client._client import AsyncClient, Client
from herald_client._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    DateWindowIncompleteError,
    DateWindowTooLongError,
    DeliveryInFlightError,
    DomainFilterConflictError,
    ErrorDetail,
    FieldNotAllowedError,
    HeraldError,
    InvalidRequestError,
    InvalidTimezoneError,
    InvalidWebhookUrlError,
    MethodNotAllowedError,
    MonitorDisabledError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitError,
    RequestNotSentError,
    ServerError,
    TooManyDatesError,
    TooManyDomainsError,
    UnsupportedMediaTypeError,
    WebhookUrlRequiredError,
)
from herald_client._pagination import AsyncPager, Pager
from herald_client._version import __version__
from herald_client.webhooks import WebhookVerificationError

__all__ = [
    "DEFAULT_BASE_URL",
    "APIConnectionError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncPager",
    "AuthenticationError",
    "Client",
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
    "Pager",
    "PayloadTooLargeError",
    "RateLimitError",
    "RequestNotSentError",
    "ServerError",
    "TooManyDatesError",
    "TooManyDomainsError",
    "UnsupportedMediaTypeError",
    "WebhookUrlRequiredError",
    "WebhookVerificationError",
    "__version__",
    "models",
    "webhooks",
]
