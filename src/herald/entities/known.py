"""What the knowledge base knows of a name: its kinds, whether it is a person's name (a known
first name, a known surname), a place or a nationality, or a name an item made."""

from __future__ import annotations

from herald.entities.document import Group, clean_surface, surface_key
from herald.entities.kb import KnowledgeBase
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, fold
from herald.entities.vocabulary import HONOUR_ENDINGS, NAMING_WORDS, ORG_KINDS


def whole_name_of(kb: KnowledgeBase, word: str, kinds: frozenset[str]) -> bool:
    """Whether the knowledge base knows ``word`` as entities of these kinds only, one of
    them named by it in full ("Intel"; not "Brady", the Brady Corporation's other name)."""
    key = alias_key(word)
    known = kb.lookup(key)
    return (
        bool(known)
        and all(r.entity_kind in kinds for r in known)
        and any(alias_key(r.display_name) == key for r in known)
    )


def known_organisation(kb: KnowledgeBase, group: Group) -> bool:
    """Whether the knowledge base knows a name of the group as organisations or companies
    only."""
    kinds = _known_kinds(kb, group)
    return bool(kinds) and kinds <= ORG_KINDS


def known_product(kb: KnowledgeBase, group: Group) -> bool:
    """Whether the knowledge base knows a name of several words of the group as a product."""
    return "product" in _known_kinds(kb, group, min_words=2)


def _known_kinds(kb: KnowledgeBase, group: Group, min_words: int = 1) -> set[str]:
    """The kinds of the knowledge-base entities named by the group's spellings (of at least
    ``min_words`` words)."""
    return {
        r.entity_kind
        for s in group.surfaces
        if len(s.split()) >= min_words
        for r in kb.lookup(surface_key(s))
    }


def products_in_plural(kb: KnowledgeBase, key: str) -> list[EntityRecord]:
    """The products a plural names ("MacBook Pros")."""
    if not key.endswith("s") or len(key) < 4:
        return []
    return [r for r in kb.lookup(key[:-1]) if r.entity_kind == "product"]


def place_or_nationality(key: str, kb: KnowledgeBase) -> bool:
    """Whether the knowledge base knows this name key as a place or a nationality."""
    return bool(kb.lookup_demonym(key)) or any(r.entity_kind == "place" for r in kb.lookup(key))


def unknown_or_made(key: str, kb: KnowledgeBase) -> bool:
    """Whether the knowledge base knows the name by nothing but an organisation an item made of
    it ("Kraft", where an earlier story named only "Kraft"), if at all."""
    if not kb.is_known_name(key):
        return True
    known = kb.lookup(key)
    return bool(known) and all(
        r.origin == "discovered" and r.entity_kind in ORG_KINDS for r in known
    )


def ends_like_a_persons_name(key: str, kb: KnowledgeBase) -> bool:
    """Whether a name key's last word is a first name or a known person's surname ("thomas")."""
    last = key.split()[-1]
    return kb.is_given_name(last) or bool(kb.lookup_surname(last))


def has_given_name(name: str, kb: KnowledgeBase) -> bool:
    """Two or three capitalised words starting with a known first name ("Olaf Scholz"), the
    last not a word organisations and places are named with ("Christine Hospital")."""
    words = clean_surface(name).split()
    if not 2 <= len(words) <= 3 or not all(w[:1].isupper() for w in words):
        return False
    last = words[-1].lower().strip(".")
    if not kb.is_given_name(fold(words[0])) or last in NAMING_WORDS or last in HONOUR_ENDINGS:
        return False
    # "Red Sox": a name the knowledge base knows as something else only is not a person's.
    known = kb.lookup(alias_key(clean_surface(name)))
    return not known or any(r.entity_kind == "person" for r in known)
