"""``Client`` (blocking) and ``AsyncClient`` (asyncio or trio, through anyio): the same
configuration and decoding (``BaseClient``), each with its own httpx client and sleep."""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import TracebackType
from typing import TypeVar

import anyio  # installed with httpx (its async backend layer); works under asyncio and trio
import httpx
from pydantic import BaseModel

from herald_client._base import DEFAULT_MAX_RETRIES, BaseClient
from herald_client._endpoints import Endpoint
from herald_client._resources.clusters import AsyncClusters, Clusters
from herald_client._resources.content import AsyncContent, Content
from herald_client._resources.entities import AsyncEntities, Entities
from herald_client._resources.monitors import Monitors
from herald_client._resources.monitors_async import AsyncMonitors
from herald_client._resources.webhooks import AsyncWebhooks, Webhooks
from herald_client.models import HeraldModel

__all__ = ["AsyncClient", "Client"]

ResponseT = TypeVar("ResponseT", bound=HeraldModel)


class Client(BaseClient):
    """A blocking Herald client. Thread-safe; reuse one per process (it pools connections).

    ``base_url`` defaults to ``HERALD_BASE_URL`` or ``http://127.0.0.1:8080``; ``api_key`` to
    ``HERALD_API_KEY``. ``timeout`` is seconds (or an ``httpx.Timeout``). Reads, PUT, DELETE
    and searches are retried up to ``max_retries`` times on 429, 5xx and lost connections,
    waiting ``retry_backoff`` seconds doubled per attempt (with jitter) or the server's
    ``retry-after``; requests that create or change state by POST/PATCH are sent once.
    ``transport`` replaces the network (``httpx.MockTransport``, a test transport, ...).
    """

    def __init__(
        self,
        *,
        base_url: str | httpx.URL | None = None,
        api_key: str | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            headers=headers,
        )
        # Redirects are not followed: they would resend the key to wherever they point.
        self._http = httpx.Client(transport=transport, timeout=self.timeout, follow_redirects=False)
        self.content = Content(self)
        self.entities = Entities(self)
        self.clusters = Clusters(self)
        self.monitors = Monitors(self)
        self.webhooks = Webhooks(self)

    def _request(
        self,
        endpoint: Endpoint[ResponseT],
        *,
        path_params: Mapping[str, str | int] | None = None,
        query: BaseModel | None = None,
        body: BaseModel | None = None,
    ) -> ResponseT:
        request = self._build_request(
            self._http, endpoint, path_params=path_params, query=query, body=body
        )
        attempt = 0
        while True:
            try:
                response = self._http.send(request)
            except httpx.TransportError as exc:
                delay = self._retry_delay_after_error(endpoint, attempt, exc)
                if delay is None:
                    raise self._connection_error(request, exc) from exc
            else:
                if response.is_success:
                    return self._decode(endpoint, response)
                delay = self._retry_delay_after_response(endpoint, attempt, response)
                if delay is None:
                    raise self._status_error(response)
            time.sleep(delay)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClient(BaseClient):
    """The async twin of ``Client``: same arguments, ``await`` every call, ``async for`` over
    ``*_all()`` iterators, ``async with`` or ``await client.aclose()`` to finish."""

    def __init__(
        self,
        *,
        base_url: str | httpx.URL | None = None,
        api_key: str | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_backoff: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            headers=headers,
        )
        self._http = httpx.AsyncClient(
            transport=transport, timeout=self.timeout, follow_redirects=False
        )
        self.content = AsyncContent(self)
        self.entities = AsyncEntities(self)
        self.clusters = AsyncClusters(self)
        self.monitors = AsyncMonitors(self)
        self.webhooks = AsyncWebhooks(self)

    async def _request(
        self,
        endpoint: Endpoint[ResponseT],
        *,
        path_params: Mapping[str, str | int] | None = None,
        query: BaseModel | None = None,
        body: BaseModel | None = None,
    ) -> ResponseT:
        request = self._build_request(
            self._http, endpoint, path_params=path_params, query=query, body=body
        )
        attempt = 0
        while True:
            try:
                response = await self._http.send(request)
            except httpx.TransportError as exc:
                delay = self._retry_delay_after_error(endpoint, attempt, exc)
                if delay is None:
                    raise self._connection_error(request, exc) from exc
            else:
                if response.is_success:
                    return self._decode(endpoint, response)
                delay = self._retry_delay_after_response(endpoint, attempt, response)
                if delay is None:
                    raise self._status_error(response)
            await anyio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
