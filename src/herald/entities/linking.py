"""Entity linking: recognised names to knowledge-base entities, with salience and confidence.

:meth:`EntityLinker.link` runs the stages in order, each a module of its own:

1. mention repair (:mod:`herald.entities.repair`): the recogniser's spans cut or joined to the
   names they hold;
2. grouping within the item (:mod:`herald.entities.coreference`): mentions that name the same
   thing are one group ("Tara Reid" ... "Reid", "European Central Bank" ... "ECB");
3. kind (:mod:`herald.entities.kind_stage`): what sort of thing each group names, from the
   recogniser's labels and the words around it (:mod:`herald.entities.cues`) or by the trained
   model (:mod:`herald.entities.kinds`); every decision of a name's kind is made there, the
   kind a new entity gets included;
4. candidates (:mod:`herald.entities.candidates`): the knowledge base's entities of that name;
5. disambiguation (:mod:`herald.entities.disambiguation`): the candidate the item means, scored
   by kind fit, prior, context and geography;
6. new entities (:mod:`herald.entities.discovery`, :mod:`herald.entities.lone_people`): groups
   that link nowhere but are confidently named things;
7. salience (:mod:`herald.entities.salience`): how much the item is about each entity.

Each group is handed from stage to stage as one :class:`~herald.entities.document.Reading`
with the kinds stage 3 found. The stages share the item's types
(:mod:`herald.entities.document`) and read the knowledge
base (:mod:`herald.entities.known`, :mod:`herald.entities.geography`), the form of names
(:mod:`herald.entities.shapes`) and the word lists (:mod:`herald.entities.vocabulary`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from herald.enrich.ner import Mention
from herald.entities import calibration
from herald.entities.admission import Candidate, admit, candidate
from herald.entities.coreference import group_mentions
from herald.entities.disambiguation import Ranked, choose_entity, for_link_model
from herald.entities.discovery import new_entity
from herald.entities.document import (
    Document,
    Group,
    LinkedEntity,
    LinkingConfig,
    Neighbours,
    Reading,
    Resolved,
    document_text,
    pieces,
    read_document,
    title_cased,
)
from herald.entities.geography import located_in
from herald.entities.kb import KnowledgeBase
from herald.entities.kind_stage import evidence_of, group_kinds, neighbours_of
from herald.entities.kinds import KindEvidence
from herald.entities.lone_people import lone_person, named_with
from herald.entities.model import EntityDraft
from herald.entities.repair import repaired
from herald.entities.salience import measure
from herald.entities.shapes import a_work, is_quoted

__all__ = [
    "EntityLinker",
    "LinkResult",
    "LinkedEntity",
    "LinkingConfig",
    "document_text",
    "link_many",
    "redirected_links",
    "title_cased",
]


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
        kb, config = self._kb, self._config
        # 1-2: mention repair and grouping within the item
        doc, groups, neighbours = self._prepare(title, body, mentions)
        resolved: dict[str, Resolved] = {}
        drafts: dict[str, EntityDraft] = {}
        lone: list[tuple[Group, str, float]] = []  # people named by one word only
        admitted: set[str] = set()  # entities admitted by the admission model
        for group in groups:
            read = self._reading(doc, group, neighbours)
            # 3: kind
            kinds = group_kinds(read)
            # 4-5: candidates and the choice among them
            choice = choose_entity(read, kinds)
            if (choice is None or choice[0].origin == "discovered") and (
                a_work(doc.text, group) or is_quoted(doc.text, group)
            ):
                continue  # a work's title ("the Hunger Games sequel"), which no kind here fits
            if choice is None:
                # 6: a new entity, or a person named by one word only
                draft = new_entity(read, kinds)
                if draft is None:  # 6b: or one the rules left out, admitted by a model
                    draft = admit(read)
                    if draft is not None:
                        admitted.add(draft[0].id)
                if draft is None:
                    one_word = lone_person(read, kinds)
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
        for group, record, confidence in named_with(kb, resolved, lone):
            if record.origin == "discovered" and record.id not in kb:
                drafts[record.id] = EntityDraft.of(record)
            resolved.setdefault(record.id, (record, confidence, group))
        # 7: salience, and how likely each link is right
        linked = calibrated(measure(doc, resolved), resolved, config, admitted)
        linked.sort(key=lambda e: (-e.salience, -e.confidence, e.display_name))
        linked = linked[: config.max_entities]
        kept = {e.entity_id for e in linked}
        return LinkResult(linked, [d for i, d in drafts.items() if i in kept])

    def _prepare(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> tuple[Document, list[Group], Neighbours]:
        """The item read for linking: its mentions repaired and grouped by name."""
        text = document_text(title, body)
        title_cased_end = len(title) if title_cased(title) else 0
        found = mentions
        mentions = repaired(text, found, self._kb, self._config.dictionary)
        groups = group_mentions(text, mentions, self._kb)
        doc = read_document(title, text, title_cased_end, mentions, groups)
        doc.pieces = pieces(found, mentions)
        return doc, groups, neighbours_of(mentions)

    def _reading(self, doc: Document, group: Group, neighbours: Neighbours) -> Reading:
        """The group as the stages after grouping read it, with the region or country the
        text puts its name in ("Harriman, Tennessee")."""
        located = located_in(self._kb, doc, group)
        return Reading(self._kb, self._config, doc, group, neighbours, located)

    def left_out(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> list[tuple[list[Mention], Candidate]]:
        """The groups the rules leave out that the admission model reads: each one's mentions
        and what the model reads of it (for training it)."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        out = []
        for group in groups:
            read = self._reading(doc, group, neighbours)
            kinds = group_kinds(read)
            if choose_entity(read, kinds) is not None:
                continue
            if a_work(doc.text, group) or is_quoted(doc.text, group):
                continue
            if new_entity(read, kinds) is not None:
                continue
            found = candidate(read)
            if found is not None:
                out.append((list(group.mentions), found))
        return out

    def ranked_first(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> list[tuple[list[Mention], Ranked]]:
        """The groups whose first-ranked known entity the link model decides on: each one's
        mentions and that candidate with what ranked it (for training the model)."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        out = []
        for group in groups:
            read = self._reading(doc, group, neighbours)
            first = for_link_model(read, group_kinds(read))
            if first is not None:
                out.append((list(group.mentions), first))
        return out

    def evidence(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> list[tuple[list[Mention], KindEvidence]]:
        """Each group's mentions and what the kind model reads of it (for training it)."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        return [
            (list(group.mentions), evidence_of(self._reading(doc, group, neighbours)))
            for group in groups
        ]


def calibrated(
    linked: list[LinkedEntity],
    resolved: Mapping[str, Resolved],
    config: LinkingConfig,
    admitted: frozenset[str] | set[str] = frozenset(),
) -> list[LinkedEntity]:
    """The links with their confidence calibrated: the share of such links that were right on
    annotated news. Every link is kept (a low confidence is a warning, not a filter). The
    links the admission model made keep its probability, which is calibrated already."""
    fitted = calibration.bundled() if config.calibrated else None
    if fitted is None:
        return linked
    kinds = "learned" if config.learned_kinds else "rules"
    return [
        link
        if link.entity_id in admitted
        else replace(
            link,
            confidence=fitted.confidence(
                link.confidence,
                kinds=kinds,
                origin=calibration.DISCOVERED
                if resolved[link.entity_id][0].origin == "discovered"
                else calibration.KNOWN,
            ),
        )
        for link in linked
    ]


def link_many(
    linker: EntityLinker,
    documents: Iterable[tuple[str, str]],
    mentions: Iterable[Sequence[Mention]],
) -> list[LinkResult]:
    return [linker.link(t, b, m) for (t, b), m in zip(documents, mentions, strict=True)]
