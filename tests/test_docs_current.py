"""Docs that must stay true: the generated references (CLI, configuration, HTTP API), the
README's links and every relative link between the docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from herald.cli.reference import api_reference, cli_reference, settings_reference
from herald.config import Settings

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Inline code and fenced blocks hold text that only looks like links (a regular expression).
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
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
        for target in LINK.findall(CODE.sub("", page.read_text())):
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


# Names of files and places a user of Herald does not have.
UNKNOWN_TO_USERS = re.compile(r"API-DECISIONS|\.\./shared|/work/")
# A repository path named in prose, e.g. ``docs/monitors.md`` (not the tail of a URL).
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:docs|deploy|bench|src|clients)/[\w./-]+\.(?:md|py|service|conf))\b"
)
# The lab notebook keeps the history of the benchmark runs as it happened.
NOTEBOOKS = {ROOT / "docs" / "dev" / "benchmark-log.md"}


def _user_docs() -> list[Path]:
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [page for page in pages if page not in NOTEBOOKS]


def _comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """Every comment and every string literal (docstrings, help texts) of a Python module, with
    its line: that is where a user reads the code's words."""
    import io
    import tokenize

    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            found.append((token.start[0], token.string))
    return found


def test_user_docs_name_no_file_a_user_does_not_have() -> None:
    named = []
    for page in _user_docs():
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if UNKNOWN_TO_USERS.search(line):
                named.append(f"{page.relative_to(ROOT)}:{number}: {line.strip()}")
            for path in REPO_PATH.findall(line):
                if not (ROOT / path).exists():
                    named.append(f"{page.relative_to(ROOT)}:{number}: {path} does not exist")
    assert named == [], "user docs name files users do not have:\n" + "\n".join(named)


def test_docstrings_and_comments_name_only_files_the_repository_has() -> None:
    named = []
    modules = [*(ROOT / "src").rglob("*.py"), *(ROOT / "clients").rglob("*.py")]
    for module in sorted(modules):
        where = module.relative_to(ROOT)
        if "build" in where.parts:
            continue  # a wheel build's copy (the wheel-install test leaves one), not a source
        for number, text in _comments_and_docstrings(module.read_text()):
            if UNKNOWN_TO_USERS.search(text):
                named.append(f"{where}:{number}: {UNKNOWN_TO_USERS.search(text)}")
            for path in REPO_PATH.findall(text):
                if not (ROOT / path).exists():
                    named.append(f"{where}:{number}: {path} does not exist")
    assert named == [], "docstrings or comments name files users do not have:\n" + "\n".join(named)


def test_the_checks_catch_what_they_look_for() -> None:
    source = '"""See API-DECISIONS.md and docs/nowhere.md."""\n# ../shared/spec\nx = 1\n'
    texts = [text for _, text in _comments_and_docstrings(source)]
    assert len(texts) == 2
    assert all(UNKNOWN_TO_USERS.search(text) for text in texts)
    assert REPO_PATH.findall(texts[0]) == ["docs/nowhere.md"]
    assert REPO_PATH.findall("https://example.org/blob/main/docs/1.0.md") == []
    assert not (ROOT / "docs" / "nowhere.md").exists()


def test_the_benchmark_plots_are_current(tmp_path: Path) -> None:
    """The committed SVGs are what bench/plots.py draws from bench/results.json, and
    docs/benchmarks.md shows every one of them."""
    from bench.plots import OUT, RESULTS, draw

    drawn = draw(RESULTS, tmp_path)
    assert [path.name for path in drawn] == sorted(path.name for path in OUT.glob("*.svg"))
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    for path in drawn:
        assert path.read_bytes() == (OUT / path.name).read_bytes(), (
            f"{path.name} is stale: run `python bench/plots.py`"
        )
        assert f"](images/benchmarks/{path.name})" in page


def test_a_benchmark_run_records_its_figures(tmp_path: Path) -> None:
    from bench.plots import RESULTS
    from bench.results import record

    copy = tmp_path / "results.json"
    copy.write_text(RESULTS.read_text())
    record(
        "ingestion",
        {"backend": "SQLite", "mode": "one process"},
        {"items_per_s": 1},
        copy,
        version="0123456789ab",
    )
    record("webhooks", {"backend": "SQLite", "run": "latest"}, {"per_s": 2}, copy, version="x")
    recorded = json.loads(copy.read_text())
    assert {
        "backend": "SQLite",
        "mode": "one process",
        "items_per_s": 1,
        "commit": "0123456789ab",
    } in recorded["ingestion"]["points"]
    assert len(recorded["ingestion"]["points"]) == len(
        json.loads(RESULTS.read_text())["ingestion"]["points"]
    )
    latest = [
        p
        for p in recorded["webhooks"]["points"]
        if p.get("backend") == "SQLite" and p.get("run") == "latest"
    ]
    assert len(latest) == 1  # recorded again, not added twice
    assert latest[0]["per_s"] == 2
    assert latest[0]["commit"] == "x"
