"""Language tags: one normaliser for every place Herald reads a language."""

from __future__ import annotations

import pytest

from herald.core.languages import is_language_tag, normalise_language


@pytest.mark.parametrize(
    ("tag", "code"),
    [
        ("en", "en"),
        ("en-US", "en"),
        ("EN_us", "en"),
        ("en-GB", "en"),
        ("en_US.UTF-8", "en"),
        ("zh-Hans-CN", "zh"),
        ("zh-yue-HK", "zh"),
        ("de-DE-1996", "de"),
        ("pt-BR", "pt"),
        ("sr-Latn-RS", "sr"),
        ("nb-NO", "no"),
        ("nn-NO", "nn"),
        ("iw", "he"),
        ("deu", "de"),
        ("ger", "de"),
        ("eng", "en"),
        (" fr-CA ", "fr"),
    ],
)
def test_tags_become_the_language_code(tag: str, code: str) -> None:
    assert normalise_language(tag) == code


@pytest.mark.parametrize("tag", ["und", "zxx", "mul"])
def test_tags_that_name_no_language_give_none(tag: str) -> None:
    assert is_language_tag(tag)
    assert normalise_language(tag) is None


@pytest.mark.parametrize("tag", ["", "english", "e", "x-klingon", "en US", "12", None])
def test_what_is_not_a_tag_gives_none(tag: str | None) -> None:
    assert normalise_language(tag) is None
    if tag is not None:
        assert not is_language_tag(tag)
