"""Where a capitalized name starts and ends in prose: headings repeated in the text, quoted titles, offices and openers.

Interface (used by attest.extract.rules only):
    heading_spans(text)                     -> [(start, end)] characters of a heading's words written again in the
                                               text below it ("Leave It to Joan" as a title, then in a sentence)
    quoted_titles(words, space, named)      -> ([(start, end)] tokens of Title Case text in double quotes,
                                               {indices of quote marks inside a name: Wilfried "Willi" Schneider})
    OFFICES, is_office(word)                -> titles, ranks and offices written before a name or as "<office> of
                                               <place>" ("Vice Admiral X", "Bishop of Y"): not part of the name
    ABBREVIATIONS                           -> abbreviations of common nouns ("TV", "CD", "PhD"): no name alone
    opener(word)                            -> a sentence's first word that leads into the name after it rather than
                                               belonging to it ("Following X", "Originally X", "Joining X")
    demonym(word)                           -> reads as a people's adjective ("African", "Swedish", "Chinese")
    work_year_after(words, end)             -> one year alone in brackets follows the name: a work's year ("The
                                               Wooden Horse (1950)"), not a life ("(1815–1852)", "(born 1950)")
    ranged_years(sentence)                  -> the sentence brackets a range of years (a career: no work's year)
All of it is general English and Wikipedia-style prose convention; no names are listed here.
"""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

from attest.extract import rules_lexicon as lex

QUOTES = frozenset({'"', "“", "”", "″", "„"})
# titles, ranks and offices: written before a person's name ("Vice Admiral X") or before "of <place>" ("Bishop of Y")
OFFICES = lex.TITLES | lex.PERSON_ROLES | frozenset(
    "admiral vice rear general lieutenant colonel captain commander commodore sergeant corporal marshal brigadier "
    "midshipman officer petty chief deputy assistant acting secretary attorney justice judge magistrate sheriff "
    "detective inspector constable duke duchess earl countess baron baroness marquis marquess viscount lord lady knight "
    "baronet elector regent tsar czar tsarina sultan shah emir caliph khan pharaoh doge archduke archduchess archbishop "
    "cardinal patriarch metropolitan abbot abbess reverend rev father rabbi imam premier leader vice-president "
    "speaker spokesman spokeswoman spokesperson commissioner councillor councilman alderman delegate envoy consul "
    "treasurer comptroller provost rector chairperson chairwoman guitarist drummer bassist singer vocalist "
    "pianist violinist composer conductor actor actress producer novelist poet painter sculptor journalist historian "
    "philosopher economist politician diplomat activist environmentalist lawyer businessman businesswoman "
    "entrepreneur goalkeeper striker defender midfielder pitcher quarterback boxer wrestler".split())


# particles inside names of other languages beyond rules_lexicon.NAME_PARTICLES: LONE_PARTICLES may stand alone
# between two capitalized words ("Zell am See", "Ortega y Gasset"); the others only in a run ("Bruck an der Leitha")
LONE_PARTICLES = frozenset("des della delle degli dei ibn bint am im zu zum zur og ter ten af av y e".split())
INNER_PARTICLES = LONE_PARTICLES | frozenset("an las los lo el het aan".split())
# last words that make a name a place ("Prince Edward Island", "Sandy Point"; no title is stripped from it), with the
# ontology label of what they name
PLACE_HEADS = {
    **dict.fromkeys("street avenue road lane boulevard drive square river lake mountain mountains mount hill hills "
                    "island islands bay valley park bridge airport station harbor harbour beach forest desert canyon "
                    "peninsula sea ocean gulf strait castle palace cathedral temple tower stadium arena falls creek "
                    "coast cape point glacier range".split(), "location"),
    **dict.fromkeys("county province district region state municipality prefecture governorate oblast canton "
                    "parish borough township".split(), "region"),
    **dict.fromkeys("city town village".split(), "city"),
    **dict.fromkeys("kingdom republic empire".split(), "country"),
}
# first words of place names ("Mount Everest", "Lake Geneva", "Fort Worth")
PLACE_OPENERS = frozenset("mount mt. mt lake cape port fort isle gulf".split())
# last words of organizations beyond rules_lexicon.ORG_WORDS, with the ontology label of what they name
ORG_HEADS = {
    **dict.fromkeys("party".split(), "political party"),
    **dict.fromkeys("league club fc".split(), "sports club"),
    **dict.fromkeys("records press airlines airways railway railways railroad bank studios pictures entertainment "
                    "corp. inc. ltd. co.".split(), "company"),
    **dict.fromkeys("times post herald gazette tribune chronicle journal magazine review".split(), "periodical"),
    **dict.fromkeys("ministry department army navy corps regiment brigade orchestra choir ensemble parliament senate "
                    "assembly congress court government bureau commission authority board federation union trust "
                    "hospital museum library police church service force".split(), "organization"),
}
# last words of events ("Korean War", "Battle of Hastings", "1998 Winter Olympics")
EVENT_TYPE_HEADS = frozenset("war wars battle olympics championship championships election elections festival "
                             "tournament revolution rebellion uprising siege massacre crisis summit expo marathon "
                             "expedition".split())
# nouns that say what a name is when they head its apposition or predicate ("X, an American singer", "X is a village
# in ...", "X was a political party"), with the ontology label of what they name
PROSE_HEADS = {
    **dict.fromkeys((
        "singer songwriter singer-songwriter rapper musician actor actress painter poet novelist writer playwright "
        "footballer cricketer athlete sprinter swimmer cyclist skier jockey boxer wrestler golfer politician "
        "statesman businessman businesswoman entrepreneur priest bishop monk nun theologian explorer missionary "
        "architect engineer scientist physicist chemist biologist botanist zoologist geologist astronomer "
        "mathematician economist philosopher historian lawyer jurist judge journalist broadcaster presenter comedian "
        "director screenwriter cinematographer designer photographer sculptor composer conductor pianist guitarist "
        "drummer bassist violinist cellist dancer model activist diplomat soldier officer pilot astronaut coach "
        "manager king queen emperor empress prince princess nobleman noblewoman aristocrat ruler monarch general "
        "admiral chief leader bandleader vocalist lyricist producer inventor physician surgeon nurse teacher "
        "professor scholar linguist translator").split(), "person"),
    **{head: label for head, label in PLACE_HEADS.items() if head not in {"state", "point", "range", "drive", "square"}},
    **dict.fromkeys("suburb neighbourhood neighborhood hamlet commune settlement archipelago".split(), "location"),
    **dict.fromkeys("party".split(), "political party"),
    **dict.fromkeys("label airline bank".split(), "company"),
    **dict.fromkeys("club team".split(), "sports club"),
    **dict.fromkeys("ministry army navy regiment orchestra choir ensemble parliament agency".split(), "organization"),
}
# words before "in"/"of"/"near"/"to" that say a place follows ("born in X", "capital of X", "moved to X")
PLACE_CONTEXT = frozenset(
    "born died located situated based headquartered capital city town village suburb province county district region "
    "north south east west northeast northwest southeast southwest near outside moved relocated emigrated settled "
    "raised grew lives lived resides resided".split())
# last words of events that their year opens ("2006 Winter Olympics", "2016–17 Ranji Trophy")
EVENT_HEADS = frozenset(
    "olympics games championship championships cup trophy draft election elections festival tournament season open "
    "prix awards award contest series congress conference summit expo exhibition marathon derby bowl classic "
    "census tour".split())
YEAR = re.compile(r"^(1[0-9]|20)\d\d(?:[–-]\d\d(?:\d\d)?)?$")
ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$")
IRREGULAR_PLURALS = frozenset({"children", "women", "men", "people", "folk"})


def work_year_after(words: list[str], end: int) -> bool:
    """One year alone in brackets right after a name (a closing quote between): encyclopedic prose dates a film, album,
    book or song that way ("The Wooden Horse (1950)", ""Ain't No Mountain High Enough" (1981)"); a person's brackets
    hold a range or "born" ("Ada Lovelace (1815–1852)"). Not after a people's adjective ("World (1962) and Olympic
    (1960) champion"); see also ranged_years."""
    k = end + (end < len(words) and words[end] in QUOTES)
    return (k + 2 < len(words) and words[k] == "(" and words[k + 2] == ")" and _LONE_YEAR.match(words[k + 1]) is not None
            and not (end - 1 >= 0 and people_or_language(words[end - 1])))


def ranged_years(sentence: str) -> bool:
    """A range of years in brackets: a sentence that dates names so is a career or a list of offices or honours
    ("visiting professor at Oxford (2009-2014), Harvard (2011)"), where one year alone is a tenure too."""
    return _YEAR_RANGE.search(sentence) is not None


_LONE_YEAR = re.compile(r"^(1[0-9]|20)\d\d$")
# (two full years: a work's run is often written short, "the Koker trilogy (1987–94)")
_YEAR_RANGE = re.compile(r"\(\s*(1[0-9]|20)\d\d\s*(?:[-–—]|and|to)\s*(1[0-9]|20)\d\d\s*\)")


def is_office(word: str) -> bool:
    """A title, rank or office ("Admiral", "Lieutenant-General", "Vice-President", "Dr.")."""
    w = word.lower().rstrip(".")
    parts = [part for part in w.split("-") if part]
    return w in OFFICES or (len(parts) > 1 and all(part in OFFICES for part in parts))


ABBREVIATIONS = frozenset(
    "tv cd cds dvd dvds lp lps ep eps vhs mp3 pc phd ph.d. ph.d mba ba bsc msc ma llb llm md dds bce ce bc ad am pm "
    "mw kw gw km kg mph ceo cfo cto coo vp gm hq us$ usd gdp id rpm dj mc sr sr. jr jr.".split())

# words that open a sentence and lead into a name rather than belong to it ("Following X", "Unlike X")
_OPENERS = frozenset(
    "following alongside unlike despite like later earlier afterwards meanwhile eventually initially originally "
    "additionally furthermore moreover however thereafter subsequently together besides according including except "
    "beyond regarding concerning notably currently previously formerly traditionally today unlike whereas postwar "
    "pre-war prewar post-war legendary famed renowned relevant".split())


def opener(word: str) -> bool:
    """A sentence's first word that leads into a name: a listed opener, an "-ly" adverb or an "-ing" form of a common
    word ("Originally", "Joining", "Encompassing")."""
    w = word.lower()
    if w in _OPENERS:
        return True
    if len(w) > 5 and w.endswith("ly"):
        return lex.word_like(w)
    if len(w) > 5 and w.endswith("ing"):
        stem = w[:-3]
        common = lex.common_words()
        return stem in common or stem + "e" in common or (len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in common) \
            or w.startswith(("en", "fore", "over", "under", "re"))
    return False


_DEMONYM = re.compile(r"^[A-Z][a-zà-ÿ]+(?:ian|ean|an|ese|ish)$")
_COMBINING = re.compile(r"^[A-Z][a-z]+o$")  # Anglo-, Franco-, Sino-, Serbo-


def demonym(word: str) -> bool:
    """Reads as a people's adjective or its combining form ("Swedish", "African", "Chinese", "Franco")."""
    return bool(_DEMONYM.match(word) or _COMBINING.match(word)) and word.lower() not in STOP_WORDS


_PEOPLES = frozenset("french dutch greek latin thai swiss welsh czech arab basque".split())


def people_or_language(word: str) -> bool:
    """A people, its language or their adjective, also in the plural ("French", "Germans", "Arabic")."""
    w = word[:-1] if word.endswith("s") and len(word) > 4 else word
    return bool(_DEMONYM.match(w)) or w.lower() in _PEOPLES or (w.endswith("ic") and w[:1].isupper())


_END = frozenset(".!?:;")


def heading_spans(text: str) -> list[tuple[int, int]]:
    """Character spans where a heading's text (a short line without closing punctuation) is written again below it:
    the document's title, or a section's, mentioned in its prose is one name, connectors and articles included. A
    heading qualifies when a word after its first is capitalized ("Leave It to Joan") or it is one uncommon word;
    a trailing "(...)" is dropped ("Mercury (planet)" is mentioned as "Mercury")."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        start, title = pos, line.strip()
        pos += len(line) + 1
        if not title or title[-1] in _END or len(title.split()) > 12 or not title[0].isupper():
            continue
        if title.endswith(")"):
            title = re.sub(r"\s*\([^()]*\)$", "", title).strip()
        words = title.split()
        if not words or not (any(w[:1].isupper() for w in words[1:]) or (len(words) == 1 and not lex.is_common(title))):
            continue
        body = start + len(line) + 1
        found = []
        at = text.find(title, body)
        while at >= 0:
            end = at + len(title)
            if not (text[at - 1:at].isalnum() or text[end:end + 1].isalnum() or text[end:end + 1] == "_"):
                found.append((at, end))
            at = text.find(title, end)
        if found:  # the heading itself names the same thing
            own = start + line.index(title)
            spans += [(own, own + len(title)), *found]
    return spans


def quoted_titles(words: list[str], space: list[bool], named: list[bool]) -> tuple[list[tuple[int, int]], set[int]]:
    """Title Case text inside double quotes, the way prose writes songs, episodes and poems ("Leave It to Joan"): one
    name, its small words included; a trailing comma or period inside the quotes is not part of it. And the quote
    marks around a nickname between two names (Wilfried "Willi" Schneider), which join the name."""
    spans: list[tuple[int, int]] = []
    glue: set[int] = set()
    n, q = len(words), 0
    while q < n:
        if words[q] not in QUOTES:
            q += 1
            continue
        r = next((k for k in range(q + 1, min(n, q + 14)) if words[k] in QUOTES or "\n" in words[k]), None)
        if r is None or words[r] not in QUOTES:
            q += 1
            continue
        end = r
        while end > q + 1 and words[end - 1] in {",", "."}:
            end -= 1
        inner = range(q + 1, end)
        content = [k for k in inner if words[k][:1].isalpha() and words[k].lower() not in STOP_WORDS]
        title_case = end > q + 1 and named[q + 1] and named[end - 1] and all(named[k] for k in content) and \
            not any(words[k] in {";", "(", ")"} for k in inner)
        if title_case:
            nickname = end - (q + 1) <= 2 and q > 0 and named[q - 1] and r + 1 < n and named[r + 1] \
                and space[q - 1] and space[r]
            if nickname:
                glue.update((q, r))
            else:
                spans.append((q + 1, end))
        q = r + 1
    return spans, glue
