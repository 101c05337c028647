"""Sentences, word counts, summaries and key points in languages other than English.

The sample texts (fixtures/multilingual_news.json) are news written for these tests, with the
traps real text has: ordinals ("in der 18. Minute"), abbreviations ("z. B.", "Dr.", "M.",
"Sra.", "env."), Spanish ¿ questions, German and French quotes, a line wrapped mid-sentence,
and Chinese sentences that end in 。！？ with no space after them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from herald.enrich.embedding import HashingEmbedder
from herald.enrich.pipeline import EnrichmentPipeline, ItemText
from herald.enrich.summarize import summarize
from herald.enrich.text import content_terms, length_in_words, split_sentences, word_count
from herald.entities.linking import EntityLinker
from tests.enrich.checks import joined_from
from tests.enrich.models import fresh_knowledge_base, language_detector, recognizer

SAMPLES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "multilingual_news.json").read_text(encoding="utf-8")
)
IDS = [sample["language"] for sample in SAMPLES]


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_sentences_are_whole_sentences(sample: dict[str, Any]) -> None:
    body = sample["body"]
    found = split_sentences(body, sample["language"], wrapped_lines=True)
    assert [s.text for s in found] == sample["sentences"]
    assert all(" ".join(body[s.start : s.end].split()) == s.text for s in found)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_summaries_and_key_points_are_whole_sentences(sample: dict[str, Any]) -> None:
    allowed = set(sample["sentences"])
    result = summarize(
        sample["title"], sample["body"], language=sample["language"], wrapped_lines=True
    )
    assert result.summary
    assert result.brief
    assert result.detailed
    for text in (result.summary, result.brief, result.detailed):
        assert joined_from(text, allowed), text
    assert 3 <= len(result.key_points) <= 5
    assert set(result.key_points) <= allowed
    assert len(set(result.key_points)) == len(result.key_points)


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Am 3. Oktober spielt Bayern. Danach kommt Köln.", "de", 2),
        ("Das Spiel endete 2:1. Danach feierten die Fans.", "de", 2),
        ("Hon vann bl.a. guld. Sedan vann hon silver.", "sv", 2),
        ("Hun vant f.eks. gull i 2. omgang. Deretter vant hun sølv.", "no", 2),
        ("Det skjedde i det 18. minutt. Så scoret Haaland.", "no", 2),
        ("Dhr. Jansen sprak bijv. over de begroting. Daarna ging hij weg.", "nl", 2),
        ("Il Sig. Rossi ha parlato. Il dott. Bianchi ha risposto.", "it", 2),
        ("Er kam 2018. Danach blieb er.", "de", 2),  # a year is not an ordinal
        ("東京で会議が開かれた。参加者は百人だった！", "ja", 2),
    ],
)
def test_ordinals_and_abbreviations_of_each_language(
    text: str, language: str, expected: int
) -> None:
    assert len(split_sentences(text, language)) == expected


def test_english_rules_are_the_default() -> None:
    text = "He finished 18. Minutes later he left."
    assert len(split_sentences(text)) == 2
    assert split_sentences(text) == split_sentences(text, "en")


def test_a_cjk_character_is_a_word() -> None:
    assert word_count("中国女排以三比一击败日本队。") == 13
    assert word_count("iPhone手机在2024年发布") == 8  # iPhone, 手, 机, 在, 2024, 年, 发, 布
    assert word_count("Der Bürgermeister sagte") == 3
    assert length_in_words("中国女排以三比一击败日本队。") == 6.5


def test_terms_of_other_languages_keep_their_letters() -> None:
    assert content_terms("Der Bürgermeister von München sagte, die Straßen seien gesperrt.", "de")[
        :3
    ] == ["bürgermeister", "münchen", "straßen"]
    assert "日本" in content_terms("中国女排以三比一击败日本队。")


def test_the_pipeline_summarises_and_counts_chinese_text() -> None:
    sample = next(s for s in SAMPLES if s["language"] == "zh")
    pipeline = EnrichmentPipeline(
        language=language_detector(),
        recognizer=recognizer(),
        linker=EntityLinker(fresh_knowledge_base()),
        embedder=HashingEmbedder(16),
    )
    enriched = pipeline.run([ItemText("c1", "news", sample["title"], sample["body"])]).items[0]
    assert enriched.language == "zh"
    assert joined_from(enriched.summary, set(sample["sentences"]))
    assert set(enriched.key_points) <= set(sample["sentences"])
    assert len(enriched.key_points) >= 3
    assert enriched.word_count == sum(1 for ch in sample["body"] if ch.isalpha())


OTHER_SCRIPTS = {
    "ru": [
        "Правительство России объявило о новых мерах поддержки экономики.",
        "Министр финансов заявил, что бюджет будет увеличен на десять процентов.",
        "Эксперты считают, что эти меры помогут малому бизнесу.",
        "Однако инфляция остается высокой в большинстве регионов страны.",
    ],
    "ar": [
        "أعلنت الحكومة المصرية اليوم عن خطة جديدة لدعم الاقتصاد الوطني.",
        "وقال وزير المالية إن الميزانية ستزيد بنسبة عشرة في المئة.",
        "ويرى الخبراء أن هذه الإجراءات ستساعد الشركات الصغيرة في البلاد.",
        "لكن التضخم لا يزال مرتفعا في معظم المحافظات المصرية.",
    ],
    "hi": [
        "सरकार ने आज अर्थव्यवस्था के लिए नई योजना की घोषणा की।",
        "वित्त मंत्री ने कहा कि बजट में दस प्रतिशत की वृद्धि होगी।",
        "विशेषज्ञों का मानना है कि इससे छोटे व्यवसायों को मदद मिलेगी।",
        "लेकिन अधिकांश राज्यों में महंगाई अभी भी ऊंची है।",
    ],
    "ja": [
        "政府は今日、新しい経済対策を発表した。",
        "財務大臣は予算を一割増やすと述べた。",
        "専門家はこの対策が中小企業を助けると見ている。",
        "しかし、多くの地域でインフレは依然として高い。",
    ],
    "ko": [
        "정부는 오늘 새로운 경제 대책을 발표했다.",
        "재무장관은 예산을 10% 늘리겠다고 말했다.",
        "전문가들은 이 대책이 중소기업에 도움이 될 것으로 본다.",
        "그러나 대부분 지역에서 물가 상승률은 여전히 높다.",
    ],
}


@pytest.mark.parametrize("language", sorted(OTHER_SCRIPTS))
def test_other_scripts_get_whole_sentence_key_points(language: str) -> None:
    sentences = OTHER_SCRIPTS[language]
    separator = "" if language == "ja" else " "
    result = summarize("", separator.join(sentences), language=language)
    assert len(result.key_points) == 3
    assert set(result.key_points) <= set(sentences)
    assert joined_from(result.summary, set(sentences))
