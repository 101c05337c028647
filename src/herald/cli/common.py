"""What every CLI command shares: settings, logging, a runtime, console output."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console

from herald.config import Settings
from herald.logging import configure_logging
from herald.runtime import Runtime

# Human-facing output goes to stderr so stdout stays clean for --json and piping.
console = Console(stderr=True)
stdout = Console(soft_wrap=True)


def load_settings() -> Settings:
    return Settings()


@contextmanager
def cli_runtime(*, quiet_logs: bool = True) -> Iterator[Runtime]:
    settings = load_settings()
    level = "WARNING" if quiet_logs else settings.log_level
    configure_logging(level, settings.log_format if not sys.stderr.isatty() else "text")
    runtime = Runtime(settings)
    try:
        yield runtime
    finally:
        runtime.close()
