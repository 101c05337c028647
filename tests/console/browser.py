"""Whether the browser tests can run here: Debian's Chromium and the Playwright package.

Playwright drives the system's Chromium (``executable_path``); its own browser download is never
used. Without a browser the console tests are reported as not run, with a notice at the end of
the session, unless ``HERALD_REQUIRE_BROWSER=1`` (CI), which makes that a failure.
"""

from __future__ import annotations

import importlib.util
import os
import shutil

REQUIRE_BROWSER = os.environ.get("HERALD_REQUIRE_BROWSER") == "1"
# The flags a root process in a closed network needs: no sandbox (root), and no background
# connections to Google's services (refused here, and logged as errors).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    configured = os.environ.get("HERALD_CHROMIUM")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def browser_problem() -> str | None:
    """Why the browser tests cannot run, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (`make setup` installs it)"
    if chromium_path() is None:
        return (
            "no Chromium found (install Debian's package as root: "
            "`apt-get update && apt-get install -y chromium`, or set HERALD_CHROMIUM)"
        )
    return None
