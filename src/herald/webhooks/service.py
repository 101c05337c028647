"""Webhook configuration, secrets, test deliveries and the inspection reads.

Functions taking a ``Session`` run inside the caller's unit of work and never commit;
:func:`send_test_delivery` orchestrates its own units of work around a network attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.dates import (
    check_order,
    end_instant,
    parse_optional_date_input,
    shift,
    start_after_end,
)
from herald.core.ids import new_uuid
from herald.core.net import (
    IPAddress,
    Resolver,
    TargetPolicy,
    TimedOut,
    check_target_url,
    system_resolver,
)
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookTarget
from herald.errors import (
    FieldIssue,
    InvalidRequest,
    InvalidWebhookUrl,
    NotFound,
    WebhookUrlRequired,
)
from herald.webhooks import leasing, repository
from herald.webhooks.delivery import get_sender
from herald.webhooks.events import create_event
from herald.webhooks.payloads import WEBHOOK_TEST
from herald.webhooks.signing import new_signing_secret, secret_preview

if TYPE_CHECKING:
    from herald.runtime import Runtime

EVENTS_PAGE_SIZE = 50
RECENT_TEST_DELIVERIES = 20
EVENTS_DEFAULT_WINDOW = timedelta(days=7)
STATS_DEFAULT_WINDOW = timedelta(hours=24)
STATS_BUCKETS = (5, 15, 60, 1440)


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    configured: bool
    url: str | None
    enabled: bool
    secret_version: int | None
    secret_preview: str | None
    disabled_reason: str | None = None  # set when Herald paused the target itself
    disabled_at: datetime | None = None


def target_policy(runtime: Runtime) -> TargetPolicy:
    return TargetPolicy(runtime.settings.allowed_webhook_networks)


def target_resolver(runtime: Runtime) -> Resolver:
    """The resolver used to check target URLs (tests may register theirs first)."""
    return runtime.service("webhooks.resolver", lambda: system_resolver)


SAVE_DNS_SECONDS = 5.0


def checked_target_url(runtime: Runtime, url: str, team_id: str = "") -> str:
    """Apply the target rules to ``url`` (DNS included); returns the URL to store.

    Call it outside any transaction. The lookup has a deadline and counts against the
    workspace's share of name lookups, like its deliveries' (a name server that never answers
    costs the caller :data:`SAVE_DNS_SECONDS` and no one else anything).
    """
    resolver = target_resolver(runtime)
    dns = get_sender(runtime).client.dns

    def bounded(host: str) -> tuple[IPAddress, ...]:
        deadline = dns.deadline_in(SAVE_DNS_SECONDS)
        return dns.resolve(resolver, host, partition=team_id, deadline=deadline)

    try:
        target, _ = check_target_url(url, target_policy(runtime), bounded)
    except TimedOut:
        raise InvalidWebhookUrl(
            f"Webhook URL host could not be resolved within {SAVE_DNS_SECONDS:g} s"
        ) from None
    return target.url


def get_config(session: Session, team_id: str) -> WebhookConfig:
    target = repository.get_target(session, team_id)
    if target is None:
        return WebhookConfig(False, None, False, None, None)
    return _config(session, target)


def _config(session: Session, target: WebhookTarget) -> WebhookConfig:
    current = [s for s in repository.signing_secrets(session, target.team_id) if not s.retired_at]
    secret = current[0] if current else None
    return WebhookConfig(
        configured=True,
        url=target.url,
        enabled=target.enabled,
        secret_version=secret.version if secret else None,
        secret_preview=secret_preview(secret.value) if secret else None,
        disabled_reason=target.disabled_reason,
        disabled_at=target.disabled_at,
    )


def save_target(
    session: Session, team_id: str, *, url: str | None, enabled: bool | None, clock: Clock
) -> tuple[WebhookConfig, str | None]:
    """Create or update the target. ``url`` must come from :func:`checked_target_url`.

    Returns the configuration and, when this call created the signing secret, the secret itself
    (the only time it is ever shown). Of two first-time calls at once, one creates the target
    and its secret; the other then updates that target, as if it had come second.
    """
    now = clock.now()
    repository.lock_team_config(session, team_id)
    target = repository.get_target(session, team_id)
    new_secret: str | None = None
    if target is None:
        if url is None:
            raise WebhookUrlRequired(
                "url is required: this workspace has no webhook target yet",
                details=[FieldIssue("url", "required when no target exists")],
            )
        target = WebhookTarget(
            team_id=team_id,
            url=url,
            enabled=True if enabled is None else enabled,
            created_at=now,
            updated_at=now,
        )
        session.add(target)
        new_secret = new_signing_secret()
        repository.add_secret(session, team_id, new_secret, 1, now)
        session.flush()
    else:
        if url is not None:
            target.url = url
        if enabled is not None:
            target.enabled = enabled
        target.updated_at = now
        session.flush()
    return _config(session, target), new_secret


def rotate_signing_secret(
    session: Session, team_id: str, clock: Clock
) -> tuple[WebhookConfig, str]:
    """Replace the signing secret; the old one keeps signing for 24 hours.

    Two rotations at once run one after the other: both succeed, and the later one's secret is
    the current one.
    """
    repository.lock_team_config(session, team_id)
    target = repository.get_target(session, team_id)
    if target is None:
        raise NotFound("this workspace has no webhook target; create one with PUT /v1/webhooks")
    now = clock.now()
    retired_version = repository.retire_current_secret(session, team_id, now)
    secret = new_signing_secret()
    repository.add_secret(session, team_id, secret, retired_version + 1, now)
    session.flush()
    return _config(session, target), secret


def send_test_delivery(runtime: Runtime, team_id: str) -> WebhookDelivery:
    """Queue a ``webhook.test`` event and attempt it at once, in this process.

    The delivery is created already leased to this call; if the process dies mid-attempt the
    lease expires and the delivery engine retries it like any other.
    """
    sender = get_sender(runtime)
    clock = runtime.clock
    owner = new_uuid()
    with runtime.sessions.write() as session:
        target = repository.get_target(session, team_id)
        if target is None:
            raise NotFound("this workspace has no webhook target; create one with PUT /v1/webhooks")
        if not target.enabled:
            raise InvalidRequest("the webhook target is disabled; enable it to send a test")
        _, delivery_id = create_event(
            session,
            team_id=team_id,
            event_type=WEBHOOK_TEST,
            data={"message": "A test delivery from Herald."},
            clock=clock,
            is_test=True,
            lease_owner=owner,
            lease_seconds=sender.lease_seconds,
        )
        session.flush()
        leased = repository.leased_delivery(
            session,
            delivery_id,
            owner=owner,
            expires=clock.now() + timedelta(seconds=sender.lease_seconds),
        )
    result = sender.attempt(leased)
    with runtime.sessions.write() as session:
        leasing.record_attempt(session, result)
        delivery = repository.get_delivery(session, team_id, delivery_id)
    assert delivery is not None
    return delivery


def get_test_delivery(session: Session, team_id: str, delivery_id: int) -> WebhookDelivery:
    delivery = repository.get_delivery(session, team_id, delivery_id)
    if delivery is None or not delivery.is_test:
        raise NotFound(f"no test delivery {delivery_id}")
    return delivery


def recent_test_deliveries(session: Session, team_id: str) -> list[WebhookDelivery]:
    return repository.recent_test_deliveries(session, team_id, RECENT_TEST_DELIVERIES)


@dataclass(frozen=True, slots=True)
class InspectionWindow:
    start: datetime
    end: datetime  # inclusive


def inspection_window(
    start: str | None, end: str | None, *, now: datetime, default: timedelta
) -> InspectionWindow:
    """``start``/``end`` as dates or datetimes (a date-only end covers that whole day).

    Missing ``end`` is now; missing ``start`` is ``default`` before the end. A start after the end
    is ``date_window_too_long``, as for every other window.
    """
    first = parse_optional_date_input(start, field="start")
    last = parse_optional_date_input(end, field="end")
    check_order(first, last)
    end_at = now if last is None else end_instant(last) - timedelta(microseconds=1)
    start_at = first.instant if first else shift(end_at, -default, field="end")
    if start_at > end_at:
        raise start_after_end("start", "end")
    return InspectionWindow(start_at, end_at)


def attempts_page(
    session: Session, team_id: str, window: InspectionWindow, page: int
) -> tuple[list[WebhookAttempt], bool]:
    """One page (1-based, 50 per page) of attempts in the window, newest first."""
    rows = repository.attempts_page(
        session,
        team_id,
        start=window.start,
        end=window.end,
        offset=(page - 1) * EVENTS_PAGE_SIZE,
        limit=EVENTS_PAGE_SIZE + 1,
    )
    return rows[:EVENTS_PAGE_SIZE], len(rows) > EVENTS_PAGE_SIZE


def attempt_stats(
    session: Session, team_id: str, window: InspectionWindow, bucket_minutes: int
) -> list[tuple[datetime, str, int]]:
    if bucket_minutes not in STATS_BUCKETS:
        raise InvalidRequest(
            f"bucket_minutes must be one of {', '.join(map(str, STATS_BUCKETS))}",
            details=[FieldIssue("bucket_minutes", "must be 5, 15, 60 or 1440")],
        )
    return repository.attempt_counts_by_bucket(
        session, team_id, start=window.start, end=window.end, bucket_minutes=bucket_minutes
    )
