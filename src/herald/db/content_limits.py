"""Lengths of the content table's bounded columns, in one place for the table's model and for
ingestion's checks (which also run in parser processes that never load the models)."""

from __future__ import annotations

EXTERNAL_ID_MAX = 512
SOURCE_NAME_MAX = 300
SOURCE_DOMAIN_MAX = 253
LANGUAGE_MAX = 12
PODCAST_ID_MAX = 200
EPISODE_ID_MAX = 200
# Whole seconds, rounded; the column is a 32-bit integer (about 68 years).
DURATION_SECONDS_MAX = 2**31 - 1
