"""One exposition from several collectors whose families may share names.

Families of the same name are merged: samples with the same name and labels add up (counters and
histogram buckets of several processes), a ``_created`` sample keeps the earliest time, and the
other samples are appended.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample


class Source(Protocol):
    def collect(self) -> Iterable[Metric]: ...


class Merged(Collector):
    """A collector of collectors (``generate_latest`` takes any object with ``collect``)."""

    def __init__(self, sources: Iterable[Source]) -> None:
        self.sources = list(sources)

    def collect(self) -> Iterator[Metric]:
        families: dict[str, Metric] = {}
        for source in self.sources:
            for family in source.collect():
                known = families.get(family.name)
                if known is None:
                    copy = Metric(family.name, family.documentation, family.type, family.unit)
                    copy.samples = list(family.samples)
                    families[family.name] = copy
                else:
                    _add_samples(known, family.samples)
        return iter(families.values())


def _key(sample: Sample) -> tuple[str, tuple[tuple[str, str], ...]]:
    return sample.name, tuple(sorted(sample.labels.items()))


def _add_samples(family: Metric, samples: Iterable[Sample]) -> None:
    where = {_key(sample): index for index, sample in enumerate(family.samples)}
    for sample in samples:
        index = where.get(_key(sample))
        if index is None:
            where[_key(sample)] = len(family.samples)
            family.samples.append(sample)
            continue
        old = family.samples[index]
        if sample.name.endswith("_created"):
            value = min(old.value, sample.value)
        else:
            value = old.value + sample.value
        family.samples[index] = old._replace(value=value)
