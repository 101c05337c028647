"""Stage 2, grouping within the item: the mentions that name one thing are one group.

Mentions of one spelling are grouped by name key; a short form then joins the one full name it
stands for in the item: a surname ("Lagarde" after "Christine Lagarde"), a first name ("Bettie"
after "Bettie Page"), a name without its initials ("Regina Benjamin", "Regina M. Benjamin"), an
acronym ("ECB" after "European Central Bank"), an organisation's first or last words ("the
Interior" after the "Interior Department", "the Post" after "the Washington Post").
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from herald.enrich.ner import Mention
from herald.entities import wordlists
from herald.entities.document import (
    Group,
    as_a_person,
    clean_surface,
    has_person_label,
    is_demonym,
    is_person,
    main_label,
)
from herald.entities.geography import abbreviated_state
from herald.entities.kb import KnowledgeBase
from herald.entities.known import (
    ends_like_a_persons_name,
    has_given_name,
    place_or_nationality,
    unknown_or_made,
)
from herald.entities.names import alias_key, is_initial, without_initials
from herald.entities.vocabulary import (
    CONNECTING,
    EVENT_ENDINGS,
    HONOUR_ENDINGS,
    NAMING_WORDS,
    PLACE_LABELS,
)


def group_mentions(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Group]:
    groups: dict[str, Group] = {}
    for mention in mentions:
        surface = clean_surface(mention.text)
        key = alias_key(surface)
        generic = _GENERIC_TAIL.search(surface)
        if generic is not None and not kb.is_known_name(key):
            # "Aceh province", "New York state": the name is "Aceh", "New York"
            surface = surface[: generic.start()]
            key = alias_key(surface)
        if len(key) < 2 or not any(ch.isalpha() for ch in key):
            continue
        group = groups.setdefault(key, Group(key))
        group.surfaces[surface] += 1
        group.mentions.append(mention)
    _join_initials(groups)
    long_names = [g for g in groups.values() if len(g.key.split()) > 1 and not is_demonym(g)]
    for key, group in list(groups.items()):
        core = [w for w in key.split() if not is_initial(w)]
        if len(core) in (2, 3) and core == key.split():
            owner = _organisation_tail_owner(group, long_names, kb)
        elif len(core) != 1 or abbreviated_state(text, group) is not None:
            continue  # "Chapel Hill, N.C." names the state, whatever "North Carolina" stands for
        elif core[0] != key:  # "M. Benjamin": a surname after initials is a short form too
            probe = Group(core[0], group.surfaces, group.mentions)
            others = [g for g in long_names if g is not group]
            owner = _short_form_owner(probe, others, kb) if is_person(group) else None
        elif is_demonym(group):
            continue
        else:
            owner = _short_form_owner(group, long_names, kb)
        if owner is not None:
            owner.surfaces.update(group.surfaces)
            owner.mentions.extend(group.mentions)
            del groups[key]
            if group in long_names:  # "M. Benjamin", "Red Crescent", joined: no full name
                long_names.remove(group)
    return list(groups.values())


def _organisation_tail_owner(
    group: Group, long_names: list[Group], kb: KnowledgeBase
) -> Group | None:
    """The one longer organisation's name of the item that is this name of two or three words
    after a place or a nationality, both called organisations by the recogniser: the item's
    short form of it, wherever it stands ("Iran's Red Crescent relief agency ... the Iranian
    Red Crescent", "the Supreme Court" beside "the California Supreme Court"; not "Bettie Page"
    beside the film "The Notorious Bettie Page"). A short form the knowledge base knows joins
    only a longer name it knows too, for an unknown name links by the names it is written
    with: "Supreme Court", made by an earlier item, would lend its entity to the "Nevada
    Supreme Court"."""
    if is_demonym(group) or not all(m.label == "ORG" for m in group.mentions):
        return None
    tail = " " + group.key
    owners = [
        g
        for g in long_names
        if g is not group
        and g.key.endswith(tail)
        and main_label(g) == "ORG"
        and place_or_nationality(g.key[: -len(tail)], kb)
    ]
    if len(owners) != 1:
        return None
    if kb.is_known_name(group.key) and not kb.is_known_name(owners[0].key):
        return None
    return owners[0]


def _join_initials(groups: dict[str, Group]) -> None:
    """A person's name written without the initials it has elsewhere in the item ("Regina
    Benjamin" and "Regina M. Benjamin") is one group, when one name with initials fits: "George
    Bush" beside both "George W. Bush" and "George H. W. Bush" stays apart, as do those two."""
    initialled: dict[str, list[str]] = defaultdict(list)
    for key, group in groups.items():
        bare = without_initials(key)
        if bare != key and is_person(group):
            initialled[bare].append(key)
    for bare, keys in initialled.items():
        plain = groups.get(bare)
        if plain is None or len(keys) != 1 or not is_person(plain):
            continue
        owner = groups[keys[0]]
        owner.surfaces.update(plain.surfaces)
        owner.mentions.extend(plain.mentions)
        del groups[bare]


# A common noun the recogniser kept after a place's name, in lower case as it is not part of it.
_GENERIC_TAIL = re.compile(r"(?<=\w) (?:" + "|".join(wordlists.sequence("area_nouns")) + r")$")


def _short_form_owner(group: Group, long_names: list[Group], kb: KnowledgeBase) -> Group | None:
    """The full name a one-word mention stands for in this document, if exactly one fits.

    "Lagarde" after "Christine Lagarde" (whatever spaCy called either: the small model often
    takes a surname for a place or a person's full name for an organisation, so a PERSON label
    on either side is enough); a first name only when labelled PERSON; an organisation's first
    word, labelled an organisation at least once and not a name the knowledge base knows ("the
    Interior" after the "Interior Department"); an acronym after the organisation it abbreviates
    ("ECB" after "European Central Bank"); a natural feature's first word, both labelled
    locations ("the Gulf" after "the Gulf of Aden"). A short form that joins a person's name is
    a mention of that person, so its label becomes PERSON.
    """
    key = group.key
    surname_of = [g for g in long_names if key == g.key.split()[-1]]
    short_person = has_person_label(group)
    owners = [g for g in surname_of if has_person_label(g)]
    if not owners and short_person:
        owners = [g for g in surname_of if "," not in g.name]
    if not owners and short_person:
        owners = [
            g
            for g in long_names
            if key == _first_name_key(g.key)
            and has_person_label(g)
            and g.key.split()[-1] not in NAMING_WORDS  # "Surrey" is not of "Surrey Police"
        ]
    as_person = False  # the short form is then the person's, whatever its label
    if not owners and surname_of and not kb.is_known_name(key):
        # The surname of a full name starting with a known first name and never called a place
        # (as "San Jose" may be), whatever the recogniser called the surname ("Riva" after
        # "Paul Riva", called an organisation, a building, a product).
        owners = [
            g
            for g in surname_of
            if has_given_name(g.name, kb) and not any(m.label in PLACE_LABELS for m in g.mentions)
        ]
        as_person = bool(owners)
    if not owners and kb.is_given_name(key) and not kb.is_known_name(key):
        # A first name alone, whatever its label, after one person's full name ("Bettie" after
        # "Bettie Page", both called organisations).
        owners = [
            g for g in long_names if key == _first_name_key(g.key) and has_given_name(g.name, kb)
        ]
        as_person = True
    if not owners and not kb.is_known_name(key) and group.name[:1].isupper():
        # A word nothing else names, alone, that starts one full name the recogniser called a
        # person and that ends as people's names do ("Kathina" after "Kathina Thomas", called a
        # place; not "Creighton" after the headline's "Creighton Returns").
        owners = [
            g
            for g in long_names
            if key == _first_name_key(g.key)
            and main_label(g) == "PERSON"
            and len(g.key.split()) <= 3
            and ends_like_a_persons_name(g.key, kb)
        ]
        as_person = True
    if len(owners) > 1:
        # Several full names of that surname: the one the item had introduced, alone, when it
        # first wrote the surname alone ("Gigante" after "Vincent Gigante", long before "Louis
        # Gigante"; after "Venus Williams and Serena Williams", "Williams" is neither).
        first = min(m.start for m in group.mentions)
        owners = [g for g in owners if min(m.start for m in g.mentions) < first]
    if len(owners) == 1:
        owner = owners[0]
        if is_person(owner) or short_person or as_person:
            group.mentions = [as_a_person(m) for m in group.mentions]
        return owner
    heads = [
        g
        for g in long_names
        if g.key.split()[0] == key
        and main_label(g) == "ORG"
        # "the Academy" is no "Academy Awards", no "Academy Award"
        and g.key.split()[-1] not in EVENT_ENDINGS | HONOUR_ENDINGS
    ]
    if (
        len(heads) == 1
        and unknown_or_made(key, kb)
        and any(m.label == "ORG" for m in group.mentions)
    ):
        return heads[0]
    heads = [g for g in long_names if g.key.split()[0] == key and main_label(g) == "LOC"]
    if len(heads) == 1 and all(m.label == "LOC" for m in group.mentions):
        return heads[0]  # "the Gulf" after "the Gulf of Aden", a natural feature's head word
    label = main_label(group)
    written = [s for s in group.surfaces if s[:1].isupper() and not s.isupper()]
    if (
        label in ("ORG", "GPE")
        and len(written) == len(group.surfaces)
        and all(r.origin == "discovered" for r in kb.lookup(key))
    ):
        # An organisation's or a place's last word, labelled so and capitalised each time and
        # no acronym, that the knowledge base does not know but as a name an item made ("the
        # Post" after "the Washington Post", "the Sox" after "the Red Sox", "Angeles" after
        # "Los Angeles").
        tails = [g for g in long_names if g.key.split()[-1] == key and main_label(g) == label]
        if len(tails) == 1 and all(m.label == label for m in group.mentions):
            return tails[0]
    surfaces = [s for s in group.surfaces if s.isupper() and 2 <= len(s) <= 6]
    if surfaces:
        expanding = [g for g in long_names if not is_person(g) and abbreviates(key, g.name)]
        if len(expanding) == 1:
            return expanding[0]
    return None


def _first_name_key(key: str) -> str:
    """The first word of a name key that is no initial ("mark" of "w mark felt")."""
    words = key.split()
    return next((w for w in words if not is_initial(w)), words[0])


def abbreviates(acronym: str, name: str) -> bool:
    """ "ecb" for "European Central Bank", "fbi" for "Federal Bureau of Investigation"."""
    words = [w for w in re.split(r"[\s-]+", name) if w]
    every = "".join(w[0] for w in words).lower()
    capitals = "".join(w[0] for w in words if w.lower() not in CONNECTING).lower()
    return acronym in (every, capitals)
