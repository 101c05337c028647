"""Text analysis shared by indexing and querying, so both sides produce the same terms.

Documents are indexed with every word (phrases such as "state of the art" must still match), while
query terms drop stop words: they carry no evidence and, at a million documents, their posting lists
are what makes a query slow.
"""

from __future__ import annotations

import functools

import tantivy

INDEX_TOKENIZER = "herald_en"

# Lucene's English stop words plus the question words of natural-language queries ("what is ...").
STOP_WORDS: tuple[str, ...] = (
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with", "what", "which", "who", "whom", "whose", "when",
    "where", "why", "how", "does", "do", "did", "has", "have", "had", "can", "could", "should",
    "would", "may", "might", "been", "being", "were", "its", "from", "than", "about", "any",
    "i", "we", "you", "he", "she", "our", "your", "his", "her", "them", "me", "my",
)  # fmt: skip


def _builder() -> tantivy.TextAnalyzerBuilder:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
    )


@functools.cache
def index_analyzer() -> tantivy.TextAnalyzer:
    """Simple tokenizer, lower case, ASCII folding (café = cafe), English (Porter) stemming."""
    return _builder().filter(tantivy.Filter.stemmer("english")).build()


@functools.cache
def _query_analyzer() -> tantivy.TextAnalyzer:
    return (
        _builder()
        .filter(tantivy.Filter.custom_stopword(list(STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def register_analyzers(index: tantivy.Index) -> None:
    """Custom analyzers are not persisted by Tantivy: every opened index needs them again."""
    index.register_tokenizer(INDEX_TOKENIZER, index_analyzer())


def index_terms(text: str) -> list[str]:
    """All terms of ``text`` as the index stores them (positions included, for phrases)."""
    return list(index_analyzer().analyze(text))


def content_terms(text: str) -> list[str]:
    """Terms of ``text`` without stop words (may be empty: see :func:`query_terms`)."""
    return list(_query_analyzer().analyze(text))


def query_terms(text: str) -> list[str]:
    """Content terms of ``text``: stop words dropped unless nothing else is left."""
    terms = content_terms(text)
    return terms if terms else index_terms(text)
