"""Every model module, imported so ``Base.metadata`` knows all tables (Alembic, drift test).

Each area adds its module here with one line.
"""

from herald.db.models import (
    clusters,
    content,
    entity,
    identity,
    ingest,
    job,
    monitor,
    monitor_feeds,
    search,
    webhook_ops,
    webhooks,
    workspace,
)

__all__ = [
    "clusters",
    "content",
    "entity",
    "identity",
    "ingest",
    "job",
    "monitor",
    "monitor_feeds",
    "search",
    "webhook_ops",
    "webhooks",
    "workspace",
]
