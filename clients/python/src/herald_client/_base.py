"""What the sync and async clients share: configuration, request building, response and error
decoding, and the retry decision. Only the sending and the sleeping differ between the two."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from herald_client._endpoints import Endpoint
from herald_client._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    ErrorDetail,
    HeraldError,
    RateLimitError,
    error_class,
)
from herald_client._retry import RetryPolicy, parse_retry_after
from herald_client._version import __version__
from herald_client.models import HeraldModel

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_TIMEOUT", "BaseClient"]

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
DEFAULT_MAX_RETRIES = 2

ResponseT = TypeVar("ResponseT", bound=HeraldModel)


KEY_NOT_SENDABLE = (
    "the API key must be printable ASCII (a Herald key is hk_ and 43 letters, digits, - or _)"
)


def sendable_key(key: str) -> bool:
    """Whether ``key`` can travel in a header: printable ASCII, as every Herald key is."""
    return key.isascii() and key.isprintable()


def shown_url(url: httpx.URL) -> str:
    """``url`` as messages show it: its user information (the Basic credentials of a proxy in
    front of Herald, given in the base URL) as ``***``."""
    return str(url.copy_with(userinfo=b"***")) if url.userinfo else str(url)


class BaseClient:
    """Configuration and the I/O-free halves of a call. See ``Client`` / ``AsyncClient``."""

    def __init__(
        self,
        *,
        base_url: str | httpx.URL | None,
        api_key: str | None,
        timeout: float | httpx.Timeout | None,
        max_retries: int,
        retry_backoff: float,
        headers: Mapping[str, str] | None,
    ) -> None:
        resolved_key = (
            api_key if api_key is not None else os.environ.get("HERALD_API_KEY", "")
        ).strip()
        if not resolved_key:
            raise HeraldError("an API key is required: pass api_key=... or set HERALD_API_KEY")
        if not sendable_key(resolved_key):
            raise HeraldError(KEY_NOT_SENDABLE)
        url = str(base_url or os.environ.get("HERALD_BASE_URL") or DEFAULT_BASE_URL)
        self.base_url = httpx.URL(url.rstrip("/"))
        self.api_key = resolved_key
        self.timeout = DEFAULT_TIMEOUT if timeout is None else httpx.Timeout(timeout)
        self.retry_policy = RetryPolicy(max_retries=max_retries, initial_delay=retry_backoff)
        self._headers = {
            "accept": "application/json",
            "user-agent": f"herald-client/{__version__} python/{platform.python_version()}",
            **dict(headers or {}),
            "x-api-key": resolved_key,
        }

    @property
    def max_retries(self) -> int:
        return self.retry_policy.max_retries

    # -- building -------------------------------------------------------------------------

    def _url(self, endpoint: Endpoint[Any], path_params: Mapping[str, str | int]) -> str:
        values: dict[str, str] = {}
        for name, value in path_params.items():
            text = str(value)
            if not text:
                raise ValueError(f"{name} must be a non-empty string")
            quoted = quote(text, safe="")
            # "." and ".." are dot segments that URL normalisation resolves away (the id would
            # vanish and the request go to another endpoint): escaped, they stay the id.
            values[name] = quoted.replace(".", "%2E") if quoted in (".", "..") else quoted
        return str(self.base_url) + endpoint.path.format(**values)

    def _build_request(
        self,
        http: httpx.Client | httpx.AsyncClient,
        endpoint: Endpoint[Any],
        *,
        path_params: Mapping[str, str | int] | None = None,
        query: BaseModel | None = None,
        body: BaseModel | None = None,
    ) -> httpx.Request:
        params = query.model_dump(mode="json", exclude_none=True) if query is not None else None
        content: dict[str, Any] | None = None
        if body is not None:
            content = body.model_dump(mode="json", exclude_none=True)
        return http.build_request(
            endpoint.method,
            self._url(endpoint, path_params or {}),
            params=params,
            json=content,
            headers=self._headers,
        )

    # -- decoding -------------------------------------------------------------------------

    def _decode(self, endpoint: Endpoint[ResponseT], response: httpx.Response) -> ResponseT:
        try:
            data = response.json()
        except ValueError as exc:
            raise APIResponseValidationError(
                f"{endpoint.name}: the response body is not JSON", response=response
            ) from exc
        try:
            model = endpoint.response.model_validate(data)
        except ValidationError as exc:
            raise APIResponseValidationError(
                f"{endpoint.name}: the response does not match {endpoint.response.__name__} "
                f"(is the server a different version?): {exc}",
                response=response,
            ) from exc
        model._request_id = response.headers.get("x-request-id")
        return model

    def _status_error(self, response: httpx.Response) -> APIStatusError:
        """The exception for an error response, read from the error envelope when present."""
        status = response.status_code
        body: Any = None
        try:
            body = response.json()
        except ValueError:
            body = None
        code = f"http_{status}"
        message = response.reason_phrase or f"HTTP {status}"
        details: list[ErrorDetail] = []
        request_id = response.headers.get("x-request-id")
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            code = body["error"]
            message = str(body.get("message") or message)
            for item in body.get("details") or []:
                if isinstance(item, dict):
                    details.append(
                        ErrorDetail(
                            field=str(item.get("field", "")), message=str(item.get("message", ""))
                        )
                    )
            meta = body.get("meta")
            if isinstance(meta, dict) and meta.get("request_id"):
                request_id = str(meta["request_id"])
        elif response.text:
            message = response.text[:500]
        cls = error_class(status, code)
        kwargs: dict[str, Any] = {
            "response": response,
            "code": code,
            "details": details,
            "request_id": request_id,
            "body": body,
        }
        if issubclass(cls, RateLimitError):
            return cls(
                message,
                retry_after=parse_retry_after(response.headers.get("retry-after")),
                **kwargs,
            )
        return cls(message, **kwargs)

    # -- retrying -------------------------------------------------------------------------

    def _retry_delay_after_response(
        self, endpoint: Endpoint[Any], attempt: int, response: httpx.Response
    ) -> float | None:
        if not endpoint.retryable:
            return None
        return self.retry_policy.delay_after_response(attempt, response)

    def _retry_delay_after_error(
        self, endpoint: Endpoint[Any], attempt: int, error: httpx.TransportError
    ) -> float | None:
        if not endpoint.retryable:
            return None
        return self.retry_policy.delay_after_error(attempt, error)

    @staticmethod
    def _connection_error(request: httpx.Request, error: httpx.TransportError) -> HeraldError:
        target = f"{request.method} {shown_url(request.url)}"
        if isinstance(error, httpx.TimeoutException):
            return APITimeoutError(f"timed out: {target} ({error!r})", request=request)
        return APIConnectionError(f"connection failed: {target} ({error!r})", request=request)
