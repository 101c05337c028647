"""Per-language tables of the text primitives: abbreviations, ordinals and stop words.

Kept apart from ``text.py`` so the rules stay readable. Lists are deliberately short: the words
that end a sentence falsely or dominate term counts in news text, not dictionaries. English is
the default and its tables live in ``text.py`` (unchanged behaviour for English text).
"""

from __future__ import annotations


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Abbreviations common across European news text (titles, company forms, "etc."), for every
# language other than English, which has its own longer list.
COMMON_ABBREVIATIONS = _set(
    "dr prof mr mrs ms jr inc ltd corp etc vs ca e.g i.e u.s u.k a.m p.m st"
)

# Lower-cased, without the final period. Dotted forms keep their inner periods ("z.b").
ABBREVIATIONS: dict[str, frozenset[str]] = {
    "de": _set(
        "bzw nr str usw vgl z.b d.h u.a hr fr jh mio mrd evtl inkl ggf sog bspw abs dipl "
        "jan feb febr apr aug sept okt nov dez tel u.ä o.ä z.t s.o u.u zzgl max min mind "
        "gebr dt engl franz ital span lat"
    ),
    "fr": _set(
        "m mm mme mlle me pp env av bd cf ex p.ex ste janv févr avr juil sept oct nov déc "
        "chap vol hab c.-à-d n°"
    ),
    "es": _set(
        "sr sra srta dr dra ud uds dña núm pág págs aprox ej p.ej av avda cía s.a ee.uu lic "
        "ing arq gral tel vol ene sept oct nov dic admón"
    ),
    "it": _set(
        "sig sigg dott ing avv on geom rag arch ecc pag pagg nr tel gen s.p.a s.r.l feb "
        "apr giu lug ago sett ott nov dic"
    ),
    "nl": _set(
        "dhr mevr drs ir ing bijv o.a d.w.z enz blz nr m.b.t i.v.m jl z.g.a resp mln mld "
        "jan feb mrt apr aug sept okt nov dec"
    ),
    "sv": _set(
        "t.ex bl.a d.v.s dvs m.m osv s.k nr kl jfr resp f.d e.kr f.kr p.g.a pga m.fl o.d "
        "fr.o.m t.o.m milj mdr jan febr aug sept okt nov dec"
    ),
    "no": _set(
        "bl.a f.eks osv mv m.m nr kl jf dvs pst evt hhv henh mht vha ifm o.l s.k t.o.m "
        "fr.o.m f.kr e.kr tlf mill mrd pga jan feb aug sept okt nov des"
    ),
    "da": _set(
        "bl.a f.eks osv mv m.m nr kl jf dvs evt hhv mht vha ifm o.l s.k t.o.m f.kr e.kr "
        "tlf mio mia pga jan feb aug sept okt nov dec"
    ),
    "pt": _set(
        "sr sra srta dr dra d av pág págs aprox ex etc núm tel vol jan fev mar abr "
        "jun jul ago set out nov dez"
    ),
}
ABBREVIATIONS["nn"] = ABBREVIATIONS["no"]

# Languages that write ordinal numbers as a number and a period ("am 3. Oktober", "18. minutt"):
# in them "18. Minute" is not a sentence end.
ORDINAL_LANGUAGES = _set("de da no nn sv fi is fo et lv lt cs sk sl hr sr bs pl hu tr")

# The most frequent function words of each language (articles, pronouns, prepositions, forms
# of "to be"/"to have"): left out of the terms that decide what a sentence is about.
STOPWORDS: dict[str, frozenset[str]] = {
    "de": _set(
        "der die das den dem des ein eine einen einem einer eines und oder aber auch als am an "
        "auf aus bei bis durch für gegen hat haben hatte hatten ich ihr ihre im in ist sind war "
        "waren wird werden wurde wurden mit nach nicht noch nur sich sie er es wir um vom von "
        "vor zu zum zur über unter dass so wie wenn was man mehr sei sein seine seiner sowie "
        "dieser diese dieses diesem dort hier schon sehr kann können soll sollen will wollen "
        "muss müssen sagte laut etwa rund jahr jahre jahren"
    ),
    "fr": _set(
        "le la les l un une des du de d et ou mais en dans sur sous par pour avec sans au aux "
        "ce cet cette ces qui que qu quoi dont où il elle ils elles on nous vous je tu se sa "
        "son ses leur leurs est sont était étaient été être a ont avait avaient avoir fait "
        "plus pas ne n s y c j m t lui été aussi comme entre selon après avant depuis deux "
        "très tout tous toute toutes a-t-il dit déclaré"
    ),
    "es": _set(
        "el la los las lo un una unos unas de del al y e o u pero en con por para sin sobre "
        "entre que qué quien como cuando donde se su sus le les lo me te nos es son fue fueron "
        "era eran ser estar está están ha han había habían haber este esta estos estas ese esa "
        "esos esas no sí más muy también ya hasta desde tras dijo según año años"
    ),
    "it": _set(
        "il lo la i gli le un uno una di del dello della dei degli delle a al allo alla ai "
        "agli alle da dal dalla dai in nel nello nella nei negli nelle con su sul sulla per "
        "tra fra e ed o ma che chi non si è sono era erano stato stata essere ha hanno aveva "
        "avere come anche più questo questa questi quello quella suo sua suoi sue loro ha "
        "detto secondo anno anni"
    ),
    "nl": _set(
        "de het een en of maar in op aan met van voor door bij naar uit over onder tot om "
        "als dan dat die dit deze er niet geen ook nog wel is zijn was waren wordt worden "
        "werd werden heeft hebben had hadden zal zullen kan kunnen hij zij ze wij we ik je "
        "u hun haar zich meer zeer al zo wat wie waar volgens jaar jaren"
    ),
    "sv": _set(
        "och i att det som en ett på är av för med till den har de inte om var jag vi du han "
        "hon hans hennes sig sin sitt sina men eller från vid under efter så kan ska skulle "
        "har hade blev blir vara varit detta denna dessa där här när nu också mer än alla år "
        "enligt sade säger"
    ),
    "no": _set(
        "og i at det som en et ei på er av for med til den har de ikke om var jeg vi du han "
        "hun hans hennes seg sin sitt sine men eller fra ved under etter så kan skal skulle "
        "hadde ble blir være vært dette denne disse der her når nå også mer enn alle år "
        "ifølge sier sa"
    ),
    "da": _set(
        "og i at det som en et på er af for med til den har de ikke om var jeg vi du han "
        "hun hans hendes sig sin sit sine men eller fra ved under efter så kan skal skulle "
        "havde blev bliver være været dette denne disse der her når nu også mere end alle år "
        "ifølge siger sagde"
    ),
    "pt": _set(
        "o a os as um uma uns umas de do da dos das ao aos à às e ou mas em no na nos nas com "
        "por pelo pela para sem sobre entre que quem como quando onde se seu sua seus suas "
        "lhe é são foi foram era eram ser estar está estão tem têm tinha ter não sim mais "
        "muito também já até desde disse segundo ano anos"
    ),
}
STOPWORDS["nn"] = STOPWORDS["no"]

# Languages whose plural (and most inflections) adds a final -s: terms drop it.
PLURAL_S_LANGUAGES = _set("fr es pt ca")
