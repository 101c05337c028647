"""Content items as stored: reading them for every area (ingestion writes them)."""
