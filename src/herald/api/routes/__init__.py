"""The API's routers. Each area adds its router module here with one line."""

from __future__ import annotations

from fastapi import APIRouter

from herald.api.routes import (
    admin_content,
    admin_ingest,
    clusters,
    console,
    content_items,
    content_search,
    entities,
    health,
    monitor_extras,
    monitors,
    webhook_ops,
    webhooks,
)

ROUTERS: list[APIRouter] = [
    health.router,
    entities.router,
    content_items.router,
    content_search.router,
    admin_ingest.router,
    admin_content.router,
    webhooks.router,
    webhook_ops.router,
    monitor_extras.router,
    monitor_extras.public,
    monitors.router,
    clusters.router,
    console.router,
]
