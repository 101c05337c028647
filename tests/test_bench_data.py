"""Every benchmark and evaluation that reads a public dataset takes its folder as ``--data DIR``
(docs/benchmarks.md, "Datasets", says where to get each), and a folder without the dataset ends
the run with one line naming ``--data``, not a traceback."""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from bench.public_data import FILES, add_data_argument, add_dataset_argument

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
# The scripts that read no public dataset, and what they read instead.
NO_DATASET = {
    "change_numbers.py": "a database it makes, with one item",
    "churn_years.py": "the demo corpus's news texts that ship with Herald",
    "clusters_recount.py": "clustering records and counts it generates",
    "clusters_scale.py": "a synthetic stream it generates",
    "clusters_term_delete.py": "term statistics it makes up",
    "db_copy.py": "the demo corpus that ships with Herald, copied between databases it makes",
    "entities_merge.py": "the bundled seed and entities and items it makes up",
    "fairness_hostile.py": "workspaces, monitors and deliveries it makes up",
    "footprint.py": "the demo corpus that ships with Herald",
    "ingest_jsonl.py": "the demo corpus that ships with Herald",
    "jobs_claim.py": "queued jobs it makes up",
    "jobs_enqueue.py": "jobs it makes up",
    "plots.py": "bench/results.json",
    "podcast_updates.py": "the demo corpus's podcast episodes that ship with Herald",
    "storage_per_item.py": "a database that Herald or another benchmark filled",
    "webhooks_delivery.py": "events it makes up",
}
DATA_ARGUMENT = {"add_data_argument", "add_dataset_argument"}


def _scripts() -> list[Path]:
    return [p for p in sorted(BENCH.glob("*.py")) if 'if __name__ == "__main__":' in p.read_text()]


def _takes_data(tree: ast.AST) -> bool:
    """The script declares ``--data``: through the shared helper or ``add_argument("--data")``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in DATA_ARGUMENT:
                return True
            if name == "add_argument" and any(
                isinstance(a, ast.Constant) and a.value == "--data" for a in node.args
            ):
                return True
    return False


def _bench_imports(tree: ast.AST) -> set[str]:
    """The bench modules a module imports (``import x``, ``from x import``, ``from bench.x``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.removeprefix("bench.") for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.removeprefix("bench."))
    return {name for name in names if (BENCH / f"{name}.py").exists()}


def _names_a_dataset(text: str) -> list[str]:
    return [name for name in FILES if name in text]


def _reads_a_dataset(script: Path) -> list[str]:
    """Datasets named by the script or by a bench module it imports, directly or not."""
    seen, todo, named = set(), [script.stem], []
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        text = (BENCH / f"{module}.py").read_text()
        named += [f"{module}: {name}" for name in _names_a_dataset(text)]
        todo += _bench_imports(ast.parse(text))
    return named


def test_every_benchmark_reading_a_dataset_takes_its_folder_as_data() -> None:
    scripts = _scripts()
    assert set(NO_DATASET) <= {p.name for p in scripts}, "NO_DATASET names a script gone"
    missing, reading = [], []
    for script in scripts:
        if script.name in NO_DATASET:
            reading += [f"{script.name} reads {r}" for r in _reads_a_dataset(script)]
        elif not _takes_data(ast.parse(script.read_text())):
            missing.append(script.name)
    assert missing == [], "benchmarks without --data DIR (or list them in NO_DATASET)"
    assert reading == [], "scripts in NO_DATASET read a dataset: give them --data DIR"


def test_the_check_catches_a_script_without_data() -> None:
    assert not _takes_data(ast.parse('p.add_argument("--items", type=int)\n'))
    assert _takes_data(ast.parse('p.add_argument("--data", type=Path)\n'))
    assert _takes_data(ast.parse('add_data_argument(p, "ecbplus")\n'))
    assert _bench_imports(ast.parse("import search_synthetic as s\nfrom bench.x import y\n")) == {
        "search_synthetic"
    }
    assert "search_synthetic: ecbplus" in _reads_a_dataset(BENCH / "search_latency.py")


def _parse(argv: list[str], *, dataset: str | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="bench.py")
    if dataset:
        add_dataset_argument(parser, dataset, "extra.csv")
    else:
        add_data_argument(parser, "ecbplus", "wcep-wikitimes-2015-09")
    data: Path = parser.parse_args(argv).data
    return data


def test_data_is_the_folder_holding_the_datasets(tmp_path: Path) -> None:
    for name in ("ecbplus", "wcep-wikitimes-2015-09"):
        for file in FILES[name]:
            (tmp_path / name).mkdir(exist_ok=True)
            (tmp_path / name / file).write_text("")
    assert _parse(["--data", str(tmp_path)]) == tmp_path
    (tmp_path / "ecbplus" / "extra.csv").write_text("")
    folder = tmp_path / "ecbplus"
    assert _parse(["--data", str(folder)], dataset="ecbplus") == folder


@pytest.mark.parametrize(
    ("layout", "problem"),
    [
        ("none", "no folder {dir}"),
        ("empty", "no {dir}/ecbplus/docs.jsonl"),
        ("no-wcep", "no {dir}/wcep-wikitimes-2015-09/wikitimes_CEP_2015-09.json"),
    ],
)
def test_a_folder_without_the_dataset_ends_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str, problem: str
) -> None:
    data = tmp_path / "data"
    if layout != "none":
        data.mkdir()
    if layout == "no-wcep":
        (data / "ecbplus").mkdir()
        (data / "ecbplus" / "docs.jsonl").write_text("")
    with pytest.raises(SystemExit) as exit_:
        _parse(["--data", str(data)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"bench.py: error: argument --data: {problem.format(dir=data)} "
        '(docs/benchmarks.md, "Datasets", says where to get each dataset)'
    ]


def test_a_dataset_folder_without_an_extra_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs.jsonl").write_text("")
    with pytest.raises(SystemExit):
        _parse(["--data", str(tmp_path)], dataset="ecbplus")
    assert f"no {tmp_path / 'extra.csv'} " in capsys.readouterr().err


def test_a_benchmark_run_without_its_data_says_so_in_one_line(tmp_path: Path) -> None:
    """A real script, run as its docs say: the help lists --data; a missing folder is one line."""
    script = str(BENCH / "clusters_eval.py")
    shown = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
    assert shown.returncode == 0
    assert "--data DIR" in shown.stdout
    missing = tmp_path / "nowhere"
    run = subprocess.run(
        [sys.executable, script, "--data", str(missing)], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        f"clusters_eval.py: error: argument --data: no folder {missing} "
        '(docs/benchmarks.md, "Datasets", says where to get each dataset)'
    ]


ARTICLE = """<Document doc_name="{name}.xml">
<token t_id="1" sentence="0" number="0">http</token>
<token t_id="2" sentence="0" number="1">:</token>
<token t_id="3" sentence="0" number="2">//</token>
<token t_id="4" sentence="0" number="3">news.example.org</token>
<token t_id="5" sentence="0" number="4">/a</token>
<token t_id="6" sentence="1" number="0">Lohan</token>
<token t_id="7" sentence="1" number="1">'s</token>
<token t_id="8" sentence="1" number="2">lawyer</token>
<token t_id="9" sentence="1" number="3">(</token>
<token t_id="10" sentence="1" number="4">``</token>
<token t_id="11" sentence="1" number="5">Shawn</token>
<token t_id="12" sentence="1" number="6">''</token>
<token t_id="13" sentence="1" number="7">)</token>
<token t_id="14" sentence="1" number="8">did</token>
<token t_id="15" sentence="1" number="9">n't</token>
<token t_id="16" sentence="1" number="10">say</token>
<token t_id="17" sentence="1" number="11">.</token>
<token t_id="18" sentence="2" number="0">'Party</token>
<token t_id="19" sentence="2" number="1">girl</token>
<token t_id="20" sentence="2" number="2">'</token>
</Document>
"""


def test_the_ecbplus_folder_is_built_from_the_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bench/ecbplus_prepare.py``: the release's XML files become docs.jsonl (text detokenised,
    the ECB+ part's URL sentence taken out) and the tarball the entity evaluation reads."""
    monkeypatch.syspath_prepend(str(BENCH))
    import ecbplus_prepare

    release = tmp_path / "release" / "ECB+" / "36"
    release.mkdir(parents=True)
    for name in ("36_1ecbplus", "36_1ecb"):
        (release / f"{name}.xml").write_text(ARTICLE.format(name=name))
    (release / ".DS_Store").write_text("")
    (tmp_path / "release" / ecbplus_prepare.SENTENCES).write_text("Topic,File,Sentence Number\n")
    files = ecbplus_prepare.corpus_files(tmp_path / "release")
    assert sorted(files) == ["36_1ecb", "36_1ecbplus"]
    out = tmp_path / "data" / "ecbplus"
    ecbplus_prepare.write(files, tmp_path / "release" / ecbplus_prepare.SENTENCES, out)
    docs = [json.loads(line) for line in (out / "docs.jsonl").read_text().splitlines()]
    text = "Lohan's lawyer (``Shawn'') didn't say.\n'Party girl '"
    assert docs[1] == {
        "doc_id": "36_1ecbplus",
        "topic": 36,
        "subtopic": "36_ecbplus",
        "split": "test",
        "source_url": "http://news.example.org/a",
        "source_domain": "news.example.org",
        "n_tokens": 20,
        "text": text,
    }
    assert docs[0]["doc_id"] == "36_1ecb"
    assert docs[0]["source_url"] is None
    assert docs[0]["text"].startswith("http: // news.example.org /a\n")  # ECB: no URL sentence
    with tarfile.open(out / "ECBplus_xml.tar.gz") as archive:
        assert archive.getnames() == ["ECB+/36/36_1ecb.xml", "ECB+/36/36_1ecbplus.xml"]
    assert (out / ecbplus_prepare.SENTENCES).exists()
