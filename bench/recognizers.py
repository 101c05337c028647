"""The recognisers Herald can run (its ``ner_recognizer`` setting), built for the evaluations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from herald.config import Settings
from herald.enrich.ner import EntityRecognizer, Mention
from herald.enrich.ner_model import TrainedRecognizer

RECOGNIZERS = ("spacy", "herald")  # compared as herald - spacy


class Recognizer(Protocol):
    model_name: str

    def recognize(self, texts: Sequence[str]) -> list[list[Mention]]: ...


class Unavailable(Exception):
    """The recogniser asked for does not exist in this version of Herald."""


def recognizer_for(name: str) -> Recognizer:
    """The recogniser Herald runs when its ``ner_recognizer`` setting is ``name``."""
    if name not in Settings.model_fields["ner_recognizer"].annotation.__args__:  # type: ignore[union-attr]
        raise Unavailable(f"--recognizer {name}: Herald has no such recogniser")
    if name == "spacy":
        return EntityRecognizer()
    return TrainedRecognizer()


def every_name(recognizer: Recognizer, texts: list[str]) -> list[list[Mention]]:
    """Mention level scores every name a recogniser tags, those Herald does not link included
    (CoNLL's MISC): Herald's own recogniser gives them by ``names``; spaCy's ``recognize``
    already keeps its other labels."""
    if not isinstance(recognizer, TrainedRecognizer):
        return recognizer.recognize(texts)
    return [
        [Mention(text[a:b], kind, a, b) for a, b, kind in found]
        for text, found in zip(texts, recognizer.names(texts), strict=True)
    ]
