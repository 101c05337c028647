"""``client.webhooks``: the workspace's target, test deliveries, attempts and statistics.

Verifying deliveries in your receiver is ``herald_client.webhooks.verify`` (the module), not
this namespace.
"""

from __future__ import annotations

from herald_client._endpoints import (
    WEBHOOKS_EVENTS,
    WEBHOOKS_GET,
    WEBHOOKS_PUT,
    WEBHOOKS_REPLAY,
    WEBHOOKS_REPLAY_DELIVERY,
    WEBHOOKS_ROTATE,
    WEBHOOKS_STATS,
    WEBHOOKS_TEST,
    WEBHOOKS_TEST_GET,
    WEBHOOKS_TEST_LIST,
)
from herald_client._pagination import AsyncPager, Pager
from herald_client._resources._base import AsyncResource, SyncResource, checked, unwrap
from herald_client.models import (
    WebhookAttempt,
    WebhookAttemptList,
    WebhookConfiguration,
    WebhookDelivery,
    WebhookEventsQuery,
    WebhookReplay,
    WebhookReplayRequest,
    WebhookResponse,
    WebhookStats,
    WebhookStatsQuery,
    WebhookTestDeliveries,
    WebhookTestQuery,
    WebhookUpdateRequest,
)
from herald_client.models._base import DateInput
from herald_client.models._enums import BucketMinutes

__all__ = ["AsyncWebhooks", "Webhooks"]


def _events_query(
    page: int | None, start: DateInput | None, end: DateInput | None
) -> WebhookEventsQuery:
    return checked(WebhookEventsQuery, {"page": page, "start": start, "end": end})


def _stats_query(
    start: DateInput | None, end: DateInput | None, bucket_minutes: BucketMinutes | None
) -> WebhookStatsQuery:
    return checked(
        WebhookStatsQuery, {"start": start, "end": end, "bucket_minutes": bucket_minutes}
    )


def _attempts(page: WebhookAttemptList) -> list[WebhookAttempt]:
    return page.events


def _next_page(page: WebhookAttemptList) -> int | None:
    return page.page + 1 if page.has_more else None


class Webhooks(SyncResource):
    def get(self) -> WebhookConfiguration:
        """The target (``configured: false`` when none); never the secret, only its preview."""
        wrapper = self._client._request(WEBHOOKS_GET)
        return unwrap(wrapper.webhook, wrapper.request_id)

    def put(self, *, url: str | None = None, enabled: bool | None = None) -> WebhookResponse:
        """Create or update the target. The first time, ``new_signing_secret`` is the secret:
        store it, it is never shown again."""
        body = checked(WebhookUpdateRequest, {"url": url, "enabled": enabled})
        return self._client._request(WEBHOOKS_PUT, body=body)

    def rotate_signing_secret(self) -> WebhookResponse:
        """A new secret in ``new_signing_secret``; the old one also signs for 24 hours."""
        return self._client._request(WEBHOOKS_ROTATE)

    def test(self) -> WebhookDelivery:
        """Send a ``webhook.test`` event now; returns its delivery record."""
        wrapper = self._client._request(WEBHOOKS_TEST)
        return unwrap(wrapper.delivery, wrapper.request_id)

    def get_test(self, delivery_id: int | str) -> WebhookDelivery:
        """One test delivery by id."""
        query = checked(WebhookTestQuery, {"id": delivery_id})
        wrapper = self._client._request(WEBHOOKS_TEST_GET, query=query)
        return unwrap(wrapper.delivery, wrapper.request_id)

    def list_tests(self) -> WebhookTestDeliveries:
        """The 20 most recent test deliveries (``.deliveries``)."""
        return self._client._request(WEBHOOKS_TEST_LIST)

    def events(
        self,
        *,
        page: int | None = None,
        start: DateInput | None = None,
        end: DateInput | None = None,
    ) -> WebhookAttemptList:
        """One page (50) of delivery attempts, newest first (default: the last 7 days)."""
        return self._client._request(WEBHOOKS_EVENTS, query=_events_query(page, start, end))

    def events_all(
        self, *, start: DateInput | None = None, end: DateInput | None = None
    ) -> Pager[WebhookAttemptList, WebhookAttempt]:
        """Every attempt in the window. Pass ``end`` to keep pages stable while new attempts
        are being recorded."""

        def fetch(page: int) -> WebhookAttemptList:
            return self.events(page=page, start=start, end=end)

        return Pager(fetch, _attempts, _next_page, 1)

    def stats(
        self,
        *,
        start: DateInput | None = None,
        end: DateInput | None = None,
        bucket_minutes: BucketMinutes | None = None,
    ) -> WebhookStats:
        """Attempt counts per time bucket and status (default: the last 24 h by hour)."""
        return self._client._request(WEBHOOKS_STATS, query=_stats_query(start, end, bucket_minutes))

    def replay_delivery(self, delivery_id: int | str) -> WebhookDelivery:
        """Send one delivery again now (same event id, current secret); the record after it."""
        path = {"delivery_id": int(delivery_id)}
        wrapper = self._client._request(WEBHOOKS_REPLAY_DELIVERY, path_params=path)
        return unwrap(wrapper.delivery, wrapper.request_id)

    def replay(
        self, *, start: DateInput | None = None, end: DateInput | None = None
    ) -> WebhookReplay:
        """Send again the failed, pending and retrying deliveries created in the window (at
        most 1,000 per call, 30 days, one call per 30 seconds)."""
        body = checked(WebhookReplayRequest, {"start": start, "end": end})
        return self._client._request(WEBHOOKS_REPLAY, body=body)


class AsyncWebhooks(AsyncResource):
    async def get(self) -> WebhookConfiguration:
        wrapper = await self._client._request(WEBHOOKS_GET)
        return unwrap(wrapper.webhook, wrapper.request_id)

    async def put(self, *, url: str | None = None, enabled: bool | None = None) -> WebhookResponse:
        body = checked(WebhookUpdateRequest, {"url": url, "enabled": enabled})
        return await self._client._request(WEBHOOKS_PUT, body=body)

    async def rotate_signing_secret(self) -> WebhookResponse:
        return await self._client._request(WEBHOOKS_ROTATE)

    async def test(self) -> WebhookDelivery:
        wrapper = await self._client._request(WEBHOOKS_TEST)
        return unwrap(wrapper.delivery, wrapper.request_id)

    async def get_test(self, delivery_id: int | str) -> WebhookDelivery:
        query = checked(WebhookTestQuery, {"id": delivery_id})
        wrapper = await self._client._request(WEBHOOKS_TEST_GET, query=query)
        return unwrap(wrapper.delivery, wrapper.request_id)

    async def list_tests(self) -> WebhookTestDeliveries:
        return await self._client._request(WEBHOOKS_TEST_LIST)

    async def events(
        self,
        *,
        page: int | None = None,
        start: DateInput | None = None,
        end: DateInput | None = None,
    ) -> WebhookAttemptList:
        return await self._client._request(WEBHOOKS_EVENTS, query=_events_query(page, start, end))

    def events_all(
        self, *, start: DateInput | None = None, end: DateInput | None = None
    ) -> AsyncPager[WebhookAttemptList, WebhookAttempt]:
        async def fetch(page: int) -> WebhookAttemptList:
            return await self.events(page=page, start=start, end=end)

        return AsyncPager(fetch, _attempts, _next_page, 1)

    async def stats(
        self,
        *,
        start: DateInput | None = None,
        end: DateInput | None = None,
        bucket_minutes: BucketMinutes | None = None,
    ) -> WebhookStats:
        return await self._client._request(
            WEBHOOKS_STATS, query=_stats_query(start, end, bucket_minutes)
        )

    async def replay_delivery(self, delivery_id: int | str) -> WebhookDelivery:
        path = {"delivery_id": int(delivery_id)}
        wrapper = await self._client._request(WEBHOOKS_REPLAY_DELIVERY, path_params=path)
        return unwrap(wrapper.delivery, wrapper.request_id)

    async def replay(
        self, *, start: DateInput | None = None, end: DateInput | None = None
    ) -> WebhookReplay:
        body = checked(WebhookReplayRequest, {"start": start, "end": end})
        return await self._client._request(WEBHOOKS_REPLAY, body=body)
