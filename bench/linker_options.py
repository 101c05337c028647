"""The linker's settings the entity benchmarks share: how kinds are decided and the admission
threshold, as one command-line option and one configuration."""

from __future__ import annotations

import argparse

from herald.entities.linking import LinkingConfig

ADMISSION = LinkingConfig().admission_threshold  # Herald's default; 1 admits no name


def add_admission_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--admission-threshold",
        type=float,
        default=ADMISSION,
        metavar="P",
        help="the probability a name the rules leave out needs to be admitted (1: none)",
    )


def linking_config(kinds: str, admission_threshold: float = ADMISSION) -> LinkingConfig:
    """Herald's linker with the kind of each name decided by the trained model (``"learned"``)
    or the hand-set votes (``"rules"``)."""
    return LinkingConfig(learned_kinds=kinds == "learned", admission_threshold=admission_threshold)
