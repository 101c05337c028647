"""README.md: what Herald does, the console screenshot, then the two commands; test internals
are CONTRIBUTING.md's. The screenshot is the committed output of scripts/console_screenshot.py
(the real console, the demo corpus, a search): a PNG at the size the script takes."""

from __future__ import annotations

import re
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
IMAGE = re.compile(r"!\[([^\]]+)\]\((docs/images/[\w-]+\.png)\)")


def test_the_readme_opens_with_what_herald_does_then_the_screenshot_then_two_commands() -> None:
    intro, rest = README.split("## Two commands", 1)
    assert "follows the news sources you choose" in intro
    [(alt, path)] = IMAGE.findall(intro)
    assert "console" in alt
    assert path == "docs/images/console-search.png"
    assert intro.index("follows the news sources") < intro.index("![")
    assert "make run" in rest.split("##", 1)[0]
    for internal in ("schemathesis", "as root", "HERALD_FUZZ", "throwaway database"):
        assert internal not in README, internal
        assert internal in (ROOT / "CONTRIBUTING.md").read_text()


def test_the_screenshot_is_the_scripts_png() -> None:
    data = (ROOT / "docs/images/console-search.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    script = (ROOT / "scripts/console_screenshot.py").read_text()
    assert f"WIDTH, HEIGHT = {width}, {height}" in script
    assert "executable_path=chromium" in script
    assert 'QUERY = "earthquake"' in script
    assert len(data) > 20_000  # a rendered page, not an empty one
