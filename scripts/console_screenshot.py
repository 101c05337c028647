"""Take the README's console screenshot (docs/images/console-search.png) from the real console.

    .venv/bin/python scripts/console_screenshot.py [--out docs/images/console-search.png]

A fresh data directory gets the bundled demo corpus the way `make run` loads it (`herald db
upgrade`, `herald demo`: a few minutes of enrichment), `herald serve` serves it on a free port,
and Playwright drives Debian's Chromium (``executable_path``; `apt-get install chromium`, or
``HERALD_CHROMIUM``) through sign-in and a search for "earthquake"; the page is saved at
1280 x 1400 (the form and the first results). tests/docs/test_readme.py checks the committed
image and that the README shows it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
HERALD = str(Path(sys.executable).parent / "herald")
WIDTH, HEIGHT = 1280, 1400  # the form and the first results
QUERY = "earthquake"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs/images/console-search.png")
    args = parser.parse_args()
    chromium = os.environ.get("HERALD_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        raise SystemExit("no Chromium: apt-get install chromium, or set HERALD_CHROMIUM")
    with tempfile.TemporaryDirectory() as home:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
        env |= {"HERALD_HOME": home, "HERALD_PORT": str(port)}
        # Every command run is this environment's own `herald` (S603: no outside input).
        subprocess.run([HERALD, "db", "upgrade"], env=env, check=True)  # noqa: S603
        demo = subprocess.run(  # noqa: S603
            [HERALD, "demo", "--json"], env=env, check=True, capture_output=True, text=True
        )
        key = json.loads(demo.stdout)["api_key"]
        server = subprocess.Popen([HERALD, "serve"], env=env, start_new_session=True)  # noqa: S603
        try:
            base_url = f"http://127.0.0.1:{port}"
            for _ in range(120):
                try:
                    if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.5)
            shoot(chromium, base_url, key, args.out)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{args.out}: {args.out.stat().st_size} bytes")
    return 0


def shoot(chromium: str, base_url: str, key: str, out: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT}, base_url=base_url)
        page.set_default_timeout(120_000)
        page.goto("/console/")
        page.fill("input[name=api_key]", key)
        page.get_by_role("button", name="Sign in").click()
        page.fill("input[name=query]", QUERY)
        page.get_by_role("button", name="Search", exact=True).click()
        page.locator(".results article.card").first.wait_for()
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()


if __name__ == "__main__":
    raise SystemExit(main())
