"""The public datasets the benchmarks and evaluations read, and their ``--data DIR`` argument.

docs/benchmarks.md ("Datasets") says where to get each dataset: one folder holds them all, one
sub-folder per dataset named as in ``FILES``. A script that reads several datasets takes that
folder (``--data DIR``, DIR/ecbplus, DIR/scifact-beir, ...); a script that reads one takes the
dataset's own folder (``--data DIR/ecbplus``). Without ``--data``, the folder is the environment
variable ``HERALD_SHARED_DATA``, else ``shared/data`` beside the checkout. A folder without what
the script reads ends the run with one line naming ``--data`` and the missing path.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

DEFAULT = Path(
    os.environ.get("HERALD_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)

# What each dataset's folder must hold (files, or folders of files) for the scripts that read it.
FILES: dict[str, tuple[str, ...]] = {
    "changelog-podcast-transcripts": ("news", "practicalai"),
    "ecbplus": ("docs.jsonl",),
    "scifact-beir": ("corpus.jsonl", "queries.jsonl", "qrels/train.tsv", "qrels/test.tsv"),
    "conll2003": ("train.txt", "valid.txt"),
    "wcep-wikitimes-2015-09": ("wikitimes_CEP_2015-09.json",),
}
WHERE = 'docs/benchmarks.md, "Datasets", says where to get each dataset'


def add_data_argument(parser: argparse.ArgumentParser, *datasets: str) -> None:
    """``--data DIR``: the folder holding ``datasets``, one sub-folder each (parsed as a Path)."""
    needed = [f"{name}/{file}" for name in datasets for file in FILES[name]]
    _add(parser, None, needed, f"the folder holding the datasets {', '.join(datasets)}")


def add_dataset_argument(parser: argparse.ArgumentParser, dataset: str, *extra: str) -> None:
    """``--data DIR``: the folder of ``dataset`` itself (parsed as a Path); ``extra``: files it
    must hold besides the usual ones."""
    _add(parser, dataset, [*FILES[dataset], *extra], f"the {dataset} dataset's folder")


def _add(
    parser: argparse.ArgumentParser, dataset: str | None, needed: list[str], what: str
) -> None:
    def folder(value: str) -> Path:
        path = Path(value)
        missing = next((path / n for n in needed if not (path / n).exists()), None)
        if not path.is_dir() or missing is not None:
            problem = f"no folder {path}" if not path.is_dir() else f"no {missing}"
            parser.exit(2, f"{parser.prog}: error: argument --data: {problem} ({WHERE})\n")
        return path

    default = "HERALD_SHARED_DATA" + (f"/{dataset}" if dataset else "")
    parser.add_argument(
        "--data",
        metavar="DIR",
        type=folder,
        # A string default goes through ``folder`` too, so it is checked like a given folder.
        default=str(DEFAULT / dataset if dataset else DEFAULT),
        help=f"{what} (default: {default}; {WHERE})",
    )
