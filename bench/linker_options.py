"""The linker's settings the entity benchmarks share: how kinds are decided, the admission
threshold, the link model's threshold and whether a nationality links to its country, as
command-line options and one configuration."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from herald.entities.linking import LinkingConfig

DEFAULT = LinkingConfig()
ADMISSION = DEFAULT.admission_threshold  # Herald's default; 1 admits no name
LINK = DEFAULT.link_threshold  # Herald's default; 0 leaves linking to the hand-set confidence


@dataclass(frozen=True, slots=True)
class LinkerOptions:
    """What the benchmarks may change of Herald's linker (Herald's defaults when not given)."""

    admission_threshold: float = ADMISSION
    nationalities: bool = DEFAULT.nationalities
    link_threshold: float = LINK

    @staticmethod
    def of(args: argparse.Namespace) -> LinkerOptions:
        return LinkerOptions(
            args.admission_threshold, args.nationalities == "link", args.link_threshold
        )


HERALDS = LinkerOptions()  # Herald's defaults


def add_linker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--admission-threshold",
        type=float,
        default=ADMISSION,
        metavar="P",
        help="the probability a name the rules leave out needs to be admitted (1: none)",
    )
    parser.add_argument(
        "--link-threshold",
        type=float,
        default=LINK,
        metavar="P",
        help="the probability the link model must give a known entity to link it (0: off)",
    )
    parser.add_argument(
        "--nationalities",
        choices=("link", "skip"),
        default="link" if DEFAULT.nationalities else "skip",
        help='whether a nationality ("French officials") links to its country',
    )


def linking_config(kinds: str, options: LinkerOptions = HERALDS) -> LinkingConfig:
    """Herald's linker with the kind of each name decided by the trained model (``"learned"``)
    or the hand-set votes (``"rules"``)."""
    return LinkingConfig(
        learned_kinds=kinds == "learned",
        admission_threshold=options.admission_threshold,
        nationalities=options.nationalities,
        link_threshold=options.link_threshold,
    )
