"""Content is untrusted: every text field of the items (titles, bodies and so summaries and key
points, source names, authors, podcast shows, transcript segments and speakers), an entity's name
and description, and a monitor's name carry HTML and script payloads. The console shows them as
text on every page, and none of them runs: no script, no handler, no element made from them, no
request they would make.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import trustme

from tests.console.conftest import SMALL_SEED, Browser, Herald, as_lines, open_browser, start_herald
from tests.webhooks.webhook_receiver import HttpsReceiver

# One server per module: every test of the module runs in the same xdist worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("console-untrusted")]

# Each part would run, or fetch, or leave an element behind if it were ever parsed as markup.
PAYLOAD = (
    '<img src="/xss-probe.png" onerror="window.__xss=1" class="xss-probe">'
    "<script>window.__xss=1</script>"
    '<svg onload="window.__xss=1" class="xss-probe"></svg>'
    '"\'><b class="xss-probe">bold</b><a href="javascript:window.__xss=1" class="xss-probe">x</a>'
)
# Monitor names hold at most 200 characters.
SHORT_PAYLOAD = (
    '<img src="/xss-probe.png" onerror="window.__xss=1" class="xss-probe">'
    "<script>window.__xss=1</script>"
)
MARK = 'onerror="window.__xss=1"'  # a piece of the payload that must show up as text
ENTITY_ID = "ent_xssglobexindustry0"
SOURCES = ["harvest-gazette.com", "farm-ledger.com", "grain-times.com"]


def _items(now: datetime) -> list[dict[str, Any]]:
    sentences = [
        f"Globex Inc. reported a record grain harvest this autumn {PAYLOAD}.",
        f"Farmers across the valley said the wheat yield {PAYLOAD} beat every forecast.",
        "Globex Inc. expects grain prices to fall as silos fill across the region.",
        f"Storage operators warned {PAYLOAD} that capacity is running short for the harvest.",
    ]
    items: list[dict[str, Any]] = []
    for n, domain in enumerate(SOURCES):
        items.append(
            {
                "external_id": f"xss/{n}",
                "media_type": "news",
                "language": "en",
                "published_date": (now - timedelta(hours=20 + n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "title": f"Globex Inc. reports a record grain harvest {PAYLOAD}",
                "body": " ".join(sentences[n:] + sentences[:n]),
                "source": {"name": f"{PAYLOAD} Gazette {n}", "domain": domain},
                "authors": [f"{PAYLOAD} Reporter"],
                "url": f"https://{domain}/harvest-{n}",
            }
        )
    items.append(
        {
            "external_id": "xss/podcast",
            "media_type": "podcast",
            "language": "en",
            "published_date": (now - timedelta(hours=30)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "title": f"Globex Inc. on the harvest {PAYLOAD}",
            "episode_id": "harvest-1",
            "podcast": {
                "podcast_id": "harvest",
                "title": f"Harvest {SHORT_PAYLOAD}",
                "publisher": PAYLOAD,
            },
            "source": {"name": f"{PAYLOAD} Radio", "domain": "harvest-radio.com"},
            "url": "https://harvest-radio.com/1",
            "transcript_segments": [
                {"start": 0.0, "end": 40.0, "speaker": PAYLOAD, "text": " ".join(sentences)},
                {"start": 40.0, "end": 95.0, "speaker": PAYLOAD, "text": " ".join(sentences[::-1])},
            ],
        }
    )
    return items


@pytest.fixture(scope="module")
def herald(
    tmp_path_factory: pytest.TempPathFactory, ca: trustme.CA, receiver: HttpsReceiver
) -> Iterator[Herald]:
    tmp = tmp_path_factory.mktemp("untrusted")
    seed = tmp / "seed.jsonl"
    entity = {
        "id": ENTITY_ID,
        "key": "test:globex-industries",
        "display_name": f"Globex {PAYLOAD}",
        "entity_kind": "company",
        "aliases": ["Globex Inc.", "Globex"],
        "description": f"A grain trader {PAYLOAD}",
        "tags": [],
    }
    seed.write_text(Path(SMALL_SEED).read_text() + json.dumps(entity) + "\n")
    yield from start_herald(
        tmp, as_lines(_items(datetime.now(UTC))), seed=seed, ca=ca, receiver=receiver
    )


@pytest.fixture
def browser(playwright_browser: Any, herald: Herald) -> Iterator[Browser]:
    yield from open_browser(playwright_browser, herald.base_url)


def assert_inert(browser: Browser, *, shown: bool = True) -> None:
    """Nothing from the payload ran or became an element; with ``shown``, it is on the page as
    text."""
    page = browser.page
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__xss") is None
    assert page.locator(".xss-probe").count() == 0
    assert page.evaluate("document.scripts.length") == 1  # the console's own module
    assert page.evaluate("[...document.scripts].every(s => s.src.endsWith('/console/app.js'))")
    assert page.locator("main img, main svg:not(.chart svg), main iframe").count() == 0
    if shown:
        assert MARK in page.locator("main").inner_text()


def test_no_payload_runs_on_any_page(browser: Browser, herald: Herald) -> None:
    page = browser.page
    browser.sign_in(herald.member_key)

    page.fill("input[name=query]", "grain harvest")
    page.get_by_role("button", name="Search", exact=True).click()
    page.locator(".results article.card").first.wait_for()
    assert page.locator(".results article.card").count() == 4
    assert_inert(browser)
    browser.shoot("untrusted-search")

    page.locator(".results article.card h2 a").first.click()
    page.get_by_role("heading", name="Summary", exact=True).wait_for()
    assert_inert(browser)
    assert page.get_by_role("link", name=f"Globex {PAYLOAD}").count() == 1
    page.get_by_role("link", name="Open the story").click()
    page.get_by_role("heading", name="Members (3)", exact=True).wait_for()
    assert_inert(browser)
    browser.shoot("untrusted-story")
    page.go_back()
    page.get_by_role("heading", name="Summary", exact=True).wait_for()

    page.get_by_role("link", name=f"Globex {PAYLOAD}").click()
    page.locator("ol.timeline li").first.wait_for()
    page.get_by_role("heading", name=f"Globex {PAYLOAD}").wait_for()
    assert_inert(browser)

    browser.nav("Stories")
    page.wait_for_selector("ol.stories li, main .message")
    assert_inert(browser, shown=page.locator("ol.stories li").count() > 0)

    browser.nav("Entities")
    page.fill("input[name=query]", "Globex")
    page.get_by_role("button", name="Find entities").click()
    page.locator("ul.entity-list li").first.wait_for()
    assert_inert(browser)

    podcast = herald.api(
        "POST", "/v1/content/search", json={"query": "harvest", "media_types": ["podcast"]}
    )["results"][0]["content_item"]["id"]
    browser.open(f"/console/#/item/{podcast}")
    page.get_by_role("heading", name="Segments", exact=True).wait_for()
    assert_inert(browser)
    browser.shoot("untrusted-podcast")

    # A monitor named with the payload, filled by a backfill: list, page, results.
    browser.nav("Monitors")
    page.fill("form input[name=name]", f"Harvest {SHORT_PAYLOAD}")
    page.fill("form input[name=query]", "grain harvest")
    page.get_by_role("button", name="Create monitor").click()
    page.get_by_role("heading", name=f"Harvest {SHORT_PAYLOAD}").wait_for()
    page.get_by_role("button", name="Backfill").click()
    page.wait_for_selector("section.task[data-status=succeeded]", timeout=60_000)
    page.locator("section[aria-label=Results] article.card").first.wait_for()
    assert_inert(browser)
    browser.nav("Monitors")
    page.locator("ul.monitor-list li").first.wait_for()
    assert_inert(browser)

    browser.nav("Webhooks")
    page.get_by_text("No target yet.").wait_for()
    assert_inert(browser, shown=False)
