"""Fixtures of the database tests: a home filled by the real pipeline, new PostgreSQL databases."""

from tests.db.filled import filled, new_pg_database, pg_url

__all__ = ["filled", "new_pg_database", "pg_url"]
