"""Docs that must stay true: the generated references (CLI, configuration, HTTP API), the
README's links and every relative link between the docs."""

from __future__ import annotations

import re
from pathlib import Path

from herald.cli.reference import api_reference, cli_reference, settings_reference
from herald.config import Settings

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
# Links to sections their owners have not written yet: (page, link) -> why.
PENDING_LINKS: dict[tuple[str, str], str] = {}


def test_cli_reference_is_current() -> None:
    assert (ROOT / "docs" / "cli.md").read_text() == cli_reference(), (
        "docs/cli.md is stale: run `make docs`"
    )


def test_configuration_reference_is_current() -> None:
    assert (ROOT / "docs" / "configuration.md").read_text() == settings_reference(), (
        "docs/configuration.md is stale: run `make docs`"
    )


def test_every_setting_is_explained() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, f"setting {name} has no description"


def test_readme_shows_the_two_commands_and_links_the_references() -> None:
    readme = (ROOT / "README.md").read_text()
    for needle in ("make run", "make test", "docs/configuration.md", "docs/cli.md"):
        assert needle in readme


def test_api_reference_is_current() -> None:
    assert (ROOT / "docs" / "reference" / "api.md").read_text() == api_reference(), (
        "docs/reference/api.md is stale: run `make docs`"
    )


def test_the_api_reference_covers_every_operation() -> None:
    from herald.cli.reference import openapi_document

    reference = (ROOT / "docs" / "reference" / "api.md").read_text()
    document = openapi_document()
    for path, methods in document["paths"].items():
        for method in methods:
            assert f"### `{method.upper()} {path}`" in reference
    for name in document["components"]["schemas"]:
        assert f"### `{name}`" in reference


def test_readme_links_every_user_doc() -> None:
    readme = (ROOT / "README.md").read_text()
    docs = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "docs" / "reference" / "api.md"]
    for doc in docs:
        assert f"]({doc.relative_to(ROOT)})" in readme, f"README does not link {doc.name}"


def test_relative_links_between_docs_resolve() -> None:
    broken = []
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        name = str(page.relative_to(ROOT))
        for target in LINK.findall(page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file_part, _, anchor = target.partition("#")
            linked = (page.parent / file_part).resolve() if file_part else page
            if not linked.exists() or (
                anchor and linked.suffix == ".md" and anchor not in _anchors(linked)
            ):
                broken.append((name, target))
    assert sorted(set(broken) - set(PENDING_LINKS)) == [], "links to missing files or anchors"


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors (lower case, punctuation dropped, spaces to hyphens) and any
    explicit `<a id>`."""
    text = page.read_text()
    found = set(ANCHOR.findall(text))
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def test_contributing_points_to_the_contributor_docs() -> None:
    contributing = (ROOT / "CONTRIBUTING.md").read_text()
    assert "](docs/dev/)" in contributing
    assert "](CONTRIBUTING.md)" in (ROOT / "README.md").read_text()


def test_contributor_and_operator_docs_name_no_machine_paths() -> None:
    pages = [
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "docs" / "dev").glob("*.md")),
        ROOT / "docs" / "deployment.md",
        ROOT / "docs" / "troubleshooting.md",
        ROOT / "docs" / "architecture.md",
    ]
    for page in pages:
        text = page.read_text()
        for needle in ("/work/", "../shared", "API-DECISIONS", "the spec"):
            assert needle not in text, f"{page.name} names {needle}"


def test_the_architecture_diagram_follows_an_item_to_webhooks() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    diagram = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert diagram.startswith("flowchart")
    for stage in (
        "enrich.item",
        "search.sync",
        "clusters.assign",
        "monitors.dated_job",
        "webhooks.dispatch",
        "/console",
        "/mcp",
    ):
        assert stage in diagram, stage
