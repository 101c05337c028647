"""Fixtures of the browser tests: a real ``herald serve`` with a small real corpus, an HTTPS
webhook receiver on loopback, and headless Chromium driven by Playwright with a watch that fails
the test on any console error, uncaught exception, failed request, unexpected 4xx/5xx, or any
request to another origin.

One server per test module (its start and the corpus's enrichment are the slow part); one
browser context per test, so every test signs in afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme

from herald.config import Settings
from herald.db.migrate import upgrade
from herald.ingest.model import IncomingItem, ItemError
from herald.ingest.pipeline import ingest_outcomes, wait_until_processed
from herald.ingest.sources.jsonl import parse_json_lines
from herald.runtime import Runtime
from herald.workspaces.service import create_key
from tests.console.browser import CHROMIUM_ARGS, REQUIRE_BROWSER, browser_problem, chromium_path
from tests.serving import herald_serve
from tests.webhooks.webhook_receiver import HttpsReceiver

ROOT = Path(__file__).resolve().parents[2]
SMALL_SEED = ROOT / "tests" / "client" / "data" / "entities-seed.jsonl"
# Not committed (.gitignore): every page at both widths, for people to look at.
SCREENSHOTS = ROOT / "screenshots" / "console"
WIDTHS = (1280, 390)


@pytest.fixture(scope="module", autouse=True)
def _browser_available() -> None:
    problem = browser_problem()
    if problem is not None:
        if REQUIRE_BROWSER:
            pytest.fail(f"browser tests cannot run: {problem}, and HERALD_REQUIRE_BROWSER=1")
        pytest.skip(f"browser tests not run: {problem}")


@dataclass
class Herald:
    base_url: str
    member_key: str
    admin_key: str
    receiver: HttpsReceiver
    home: Path

    def api(self, method: str, path: str, **kwargs: Any) -> Any:
        headers = {"x-api-key": self.member_key}
        response = httpx.request(
            method, f"{self.base_url}{path}", headers=headers, timeout=60, **kwargs
        )
        response.raise_for_status()
        return response.json()


def _items(lines: Sequence[bytes]) -> list[IncomingItem]:
    items = []
    for outcome in parse_json_lines(lines):
        assert not isinstance(outcome, ItemError), outcome
        if isinstance(outcome, IncomingItem):
            items.append(outcome)
    return items


def start_herald(
    tmp: Path,
    lines: Sequence[bytes],
    *,
    seed: Path = SMALL_SEED,
    ca: trustme.CA,
    receiver: HttpsReceiver,
    rebase: Callable[[list[IncomingItem]], list[IncomingItem]] | None = None,
) -> Iterator[Herald]:
    """Prepare a data directory in-process (migrate, seed the knowledge base, store, enrich,
    cluster and index ``lines``, create keys), then serve it with `herald serve` (workers and
    scheduler included) until the generator is closed."""
    home = tmp / "home"
    home.mkdir()
    ca_file = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    database_url = f"sqlite:///{home / 'herald.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": database_url,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": str(seed),
        "HERALD_NER_MAX_CHARS": "300",
        "HERALD_LOG_FORMAT": "text",
        "HERALD_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",
        "SSL_CERT_FILE": str(ca_file),
    }
    settings = Settings(
        home=home,
        database_url=database_url,
        entity_seed=str(seed),
        embedding_model="herald-hashing",
        ner_max_chars=300,
        log_format="text",
    )
    upgrade(database_url)
    runtime = Runtime(settings)
    try:
        from herald.entities.service import seed_knowledge_base
        from herald.jobs.registry import lanes
        from herald.jobs.worker import Worker

        seed_knowledge_base(runtime)
        items = _items(lines)
        if rebase is not None:
            items = rebase(items)
        ingest_outcomes(runtime.sessions, items, clock=runtime.clock)
        worker = Worker(runtime)
        wait_until_processed(
            runtime.sessions, work=lambda: sum(worker.drain(lane, max_jobs=64) for lane in lanes())
        )
        with runtime.sessions.write() as session:
            member = create_key(session, workspace="acme", role="member", clock=runtime.clock)
            admin = create_key(session, workspace="acme", role="admin", clock=runtime.clock)
    finally:
        runtime.close()
    with herald_serve([], env=env, log_path=tmp / "serve.log") as (base_url, _process):
        yield Herald(base_url, member.api_key, admin.api_key, receiver, home)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def receiver(ca: trustme.CA) -> Iterator[HttpsReceiver]:
    with HttpsReceiver(ca, names=("127.0.0.1",)) as server:
        yield server


@pytest.fixture(scope="module")
def playwright_browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Watch:
    """Everything that went wrong in the browser. Statuses a step provokes on purpose (a 400
    from a bad filter) are admitted only inside ``expect_status``."""

    origin: str
    problems: list[str] = field(default_factory=list)
    allowed: set[int] = field(default_factory=set)
    seen_allowed: list[str] = field(default_factory=list)

    @contextlib.contextmanager
    def expect_status(self, *statuses: int) -> Iterator[None]:
        self.allowed |= set(statuses)
        try:
            yield
        finally:
            self.allowed -= set(statuses)

    def on_console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        text = msg.text
        if any(f"status of {s} " in text for s in self.allowed):
            self.seen_allowed.append(text)
            return
        self.problems.append(f"console error: {text} at {msg.location}")

    def on_page_error(self, error: Any) -> None:
        self.problems.append(f"uncaught exception: {error}")

    def on_request_failed(self, request: Any) -> None:
        # ERR_ABORTED is the browser dropping a request because the page was left or reloaded
        # (a step of the test); requests to other origins are caught by on_route.
        if request.failure == "net::ERR_ABORTED":
            return
        self.problems.append(f"request failed: {request.method} {request.url} {request.failure}")

    def on_response(self, response: Any) -> None:
        status = response.status
        if status >= 400 and status not in self.allowed:
            self.problems.append(f"HTTP {status}: {response.request.method} {response.url}")

    def on_route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith((self.origin + "/", "data:", "blob:", "about:")):
            route.continue_()
            return
        self.problems.append(f"request to another origin: {url}")
        route.abort()

    def check(self) -> None:
        assert not self.problems, "\n".join(self.problems)


@dataclass
class Browser:
    page: Any
    watch: Watch
    base_url: str

    def open(self, path: str) -> None:
        self.page.goto(self.base_url + path)

    def sign_in(self, key: str) -> None:
        self.open("/console/")
        self.page.fill("input[name=api_key]", key)
        self.page.get_by_role("button", name="Sign in").click()
        self.page.get_by_role("link", name="Search", exact=True).wait_for()

    def nav(self, name: str) -> None:
        self.page.get_by_role("navigation").get_by_role("link", name=name, exact=True).click()

    def shoot(self, name: str) -> None:
        """The page at both widths into SCREENSHOTS; at 390 px nothing may overflow sideways."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page = self.page
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            page.wait_for_timeout(100)
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, f"{name} overflows {overflow} px sideways at {width} px"
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
            # The first screenful too: small enough for the documentation.
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}-top.png"))
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def open_browser(playwright_browser: Any, base_url: str) -> Iterator[Browser]:
    watch = Watch(base_url)
    context = playwright_browser.new_context(
        viewport={"width": WIDTHS[0], "height": 900}, base_url=base_url
    )
    # Generous: a loaded two-core machine running the suite on two workers has taken over 30 s
    # for a page's first search (the server loads its embedding model on first use).
    context.set_default_timeout(90_000)
    context.route("**/*", watch.on_route)
    page = context.new_page()
    page.on("console", watch.on_console)
    page.on("pageerror", watch.on_page_error)
    page.on("requestfailed", watch.on_request_failed)
    page.on("response", watch.on_response)
    try:
        yield Browser(page, watch, base_url)
        watch.check()
    finally:
        context.close()


def as_lines(items: Sequence[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(item).encode() for item in items]
