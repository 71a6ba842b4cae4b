"""Adjectives of nationality ("American", "Norwegian") and the country each names, from the shipped places lexicon."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from attest.extract import rules_lexicon as lex
from attest.extract import rules_names as names

DATA = Path(__file__).parent / "data"


def _forms(word: str) -> set[str]:
    """The regular English adjectives of a place's name, by its last letters: Russia-n, Canad(a)-ian, Chin(a)-ese;
    Chile-an, Ukrain(e)-ian; German(y), Ital(y)-ian; Mexic(o)-an; Leban(on)-ese; else Brazil-ian, Japan-ese,
    Pakistan-i."""
    if word.endswith("a"):
        return {word + "n", word[:-1] + "ian", word[:-1] + "ese"}
    if word.endswith("e"):
        return {word + "an", word[:-1] + "ian"}
    if word.endswith("y"):
        return {word[:-1], word[:-1] + "ian"}
    if word.endswith("o"):
        return {word[:-1] + "an", word + "an"}
    forms = {word + "ian", word + "ese", word + "i", word + "an"}
    if word.endswith("on"):
        forms.add(word[:-2] + "ese")
    return forms


@lru_cache(maxsize=1)
def demonyms() -> dict[str, str]:
    """Adjective -> the country or region it names: data/demonyms.txt's irregular forms, then the regular forms of
    each word of a country or region in places.txt (a form that is itself a place, a first name or written like no
    people's adjective is left out: "Jordan" is a country, "Susan" a name)."""
    table: dict[str, str] = {}
    for line in (DATA / "demonyms.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            adjective, _, country = line.partition("|")
            table[adjective.strip()] = country.strip()
    places, first = lex.places(), lex.first_names()
    for place, kind in places.items():
        if kind not in {"country", "location"}:
            continue
        for word in place.split():
            if len(word) < 4 or not word.isalpha() or not word[:1].isupper() or lex.is_common(word) \
                    or word.lower() in names.PLACE_HEADS:
                continue  # "United", "Republic": the common words of a name are not its people
            for form in sorted(_forms(word)):
                if form not in table and form not in places and form not in first \
                        and (names.demonym(form) or form.endswith("i")) and form != word:
                    table[form] = place
    return table


def nations(a: str, b: str, a_country: bool, b_country: bool) -> bool:
    """Whether two names are a people's adjective and a nation: its own country ("Finnish", "Finland": one nation,
    as an acronym and its expansion are one body), another people's adjective or another country (`a_country`,
    `b_country`: the name is typed a country). Nations named side by side ("Swedish, Norwegian and Finnish
    settlers"; "a Canadian-born U.S. citizen") are listed or compared; the text states no relation between them."""
    table = demonyms()
    if a not in table:
        a, b, a_country, b_country = b, a, b_country, a_country
    return a in table and (b in table or b_country or table[a] == b)
