"""Entity linking: recognised names to knowledge-base entities, with salience and confidence.

For one document, mentions that name the same thing are grouped ("Tara Reid" ... "Reid";
"UK" ... "United Kingdom" when both are aliases of one entity). Each group's kind is estimated
from spaCy's labels and the words around it (:mod:`herald.entities.cues`). Candidates come from
the knowledge base by name and alias; each is scored by kind fit, prior (how often the name means
that entity), context (words of the document found in the entity's description and tags) and
geography (a city whose country is also named). A bare name that is also used as a common word
in the document ("apple" ... "Apple trees") or only ever starts a sentence needs context to link.
Groups that link nowhere but are confidently named things become new entities.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from herald.enrich.ner import Mention
from herald.enrich.text import content_terms, split_sentences
from herald.entities.coreference import group_mentions
from herald.entities.cues import (
    SPORTS_WORDS,
)
from herald.entities.disambiguation import by_surname, choose, person_over_a_far_town, team
from herald.entities.discovery import new_entity
from herald.entities.document import (
    Document,
    Group,
    LinkedEntity,
    LinkingConfig,
    document_text,
    surface_key,
    title_cased,
)
from herald.entities.geography import located_in
from herald.entities.kb import KnowledgeBase
from herald.entities.kind_stage import group_kinds, kind_distribution, kind_evidence, neighbours_of
from herald.entities.kinds import KindEvidence
from herald.entities.lone_people import lone_person, named_with
from herald.entities.matcher import with_dictionary_mentions
from herald.entities.model import EntityDraft, EntityRecord
from herald.entities.repair import headline_names, split_glued, within_paragraphs, without_openers
from herald.entities.repair_joins import (
    joined_across_and,
    joined_split_names,
    with_given_names,
    with_state_mentions,
    with_surnames_after_nicknames,
)
from herald.entities.salience import measure
from herald.entities.shapes import a_work, is_quoted


def redirected_links(
    links: Sequence[LinkedEntity], redirects: Mapping[str, str]
) -> list[LinkedEntity]:
    """``links`` with each merged entity's id replaced by the id it was merged into; two links
    that become one entity are one link (mentions added up, the higher salience and
    confidence), in the place of the more salient."""
    out: dict[str, LinkedEntity] = {}
    for link in links:
        entity_id = redirects.get(link.entity_id, link.entity_id)
        seen = out.get(entity_id)
        if seen is None:
            out[entity_id] = replace(link, entity_id=entity_id)
            continue
        out[entity_id] = replace(
            seen,
            mention_count=seen.mention_count + link.mention_count,
            salience=max(seen.salience, link.salience),
            confidence=max(seen.confidence, link.confidence),
            surfaces=tuple(dict.fromkeys(seen.surfaces + link.surfaces)),
        )
    return sorted(out.values(), key=lambda link: -link.salience)


@dataclass(frozen=True, slots=True)
class LinkResult:
    entities: list[LinkedEntity]  # most salient first
    new_entities: list[EntityDraft]  # to add to the knowledge base (also among ``entities``)


class EntityLinker:
    def __init__(self, kb: KnowledgeBase, config: LinkingConfig | None = None) -> None:
        self._kb = kb
        self._config = config or LinkingConfig()

    @property
    def kb(self) -> KnowledgeBase:
        return self._kb

    def link(self, title: str, body: str, mentions: Sequence[Mention]) -> LinkResult:
        """Link the mentions found in ``document_text(title, body)``."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        resolved: dict[str, tuple[EntityRecord, float, Group]] = {}
        drafts: dict[str, EntityDraft] = {}
        lone: list[tuple[Group, str, float]] = []  # people named by one word only
        for group in groups:
            # The region or country the text puts the name in ("Harriman, Tennessee").
            located = located_in(self._kb, doc, group)
            kinds = group_kinds(self._kb, self._config, doc, group, neighbours, located)
            choice = (
                team(self._kb, doc, group)
                or person_over_a_far_town(self._kb, doc, group, located)
                or choose(self._kb, self._config, doc, group, kinds, located)
                or by_surname(self._kb, doc, group, kinds)
            )
            if (choice is None or choice[0].origin == "discovered") and (
                a_work(doc.text, group) or is_quoted(doc.text, group)
            ):
                continue  # a work's title ("the Hunger Games sequel"), which no kind here fits
            if choice is None:
                draft = new_entity(self._kb, self._config, doc, group, kinds, located)
                if draft is None:
                    one_word = lone_person(doc, group, kinds, self._kb)
                    if one_word is not None:
                        lone.append((group, *one_word))
                    continue
                record, confidence = draft
                drafts[record.id] = EntityDraft.of(record)
            else:
                record, confidence = choice
            previous = resolved.get(record.id)
            if previous is None:
                resolved[record.id] = (record, confidence, group)
            else:  # two spellings of one entity ("UK", "United Kingdom"): one link
                merged = Group(previous[2].key)
                merged.surfaces = previous[2].surfaces + group.surfaces
                merged.mentions = previous[2].mentions + group.mentions
                resolved[record.id] = (record, max(confidence, previous[1]), merged)
        for group, record, confidence in named_with(self._kb, resolved, lone):
            if record.origin == "discovered" and record.id not in self._kb:
                drafts[record.id] = EntityDraft.of(record)
            resolved.setdefault(record.id, (record, confidence, group))
        linked = measure(doc, resolved)
        linked.sort(key=lambda e: (-e.salience, -e.confidence, e.display_name))
        linked = linked[: self._config.max_entities]
        kept = {e.entity_id for e in linked}
        return LinkResult(linked, [d for i, d in drafts.items() if i in kept])

    def _prepare(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> tuple[Document, list[Group], dict[int, tuple[Mention | None, Mention | None]]]:
        """The item read for linking: its mentions repaired and grouped by name."""
        text = document_text(title, body)
        title_cased_end = len(title) if title_cased(title) else 0
        mentions = split_glued(text, mentions, self._kb)
        mentions = without_openers(within_paragraphs(mentions), self._kb)
        mentions = with_given_names(text, joined_across_and(text, mentions), self._kb)
        mentions = with_surnames_after_nicknames(text, mentions)
        mentions = joined_split_names(text, mentions, self._kb)
        mentions = with_state_mentions(text, headline_names(mentions, self._kb, title_cased_end))
        if self._config.dictionary:
            mentions = with_dictionary_mentions(text, self._kb, mentions)
        groups = group_mentions(text, mentions, self._kb)
        terms = frozenset(content_terms(text))
        doc = Document(
            text=text,
            title_end=len(title),
            title_cased_end=title_cased_end,
            terms=terms,
            sports=not terms.isdisjoint(SPORTS_WORDS),
            sentence_starts=frozenset(s.start for s in split_sentences(text)),
            keys={g.key for g in groups},
            lone_people=frozenset(
                surface_key(m.text)
                for m in mentions
                if m.label == "PERSON" and len(m.text.split()) == 1
            ),
        )
        return doc, groups, neighbours_of(mentions)

    def evidence(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> list[tuple[list[Mention], KindEvidence]]:
        """Each group's mentions and what the kind model reads of it (for training it)."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        return [
            (
                list(group.mentions),
                kind_evidence(
                    self._kb,
                    doc,
                    group,
                    kind_distribution(doc, group, neighbours, self._kb),
                    located_in(self._kb, doc, group),
                ),
            )
            for group in groups
        ]


def link_many(
    linker: EntityLinker,
    documents: Iterable[tuple[str, str]],
    mentions: Iterable[Sequence[Mention]],
) -> list[LinkResult]:
    return [linker.link(t, b, m) for (t, b), m in zip(documents, mentions, strict=True)]
