"""Every model module, imported so ``Base.metadata`` knows all tables (Alembic, drift test).

Each area adds its module here with one line.
"""

from herald.db.models import content, entity, job, workspace

__all__ = ["content", "entity", "job", "workspace"]
