"""Literal attributes read from encyclopedic English: dates of birth, death, founding and publication, kept as written.

Interface (used by the rule extractor):

    found = literal_attributes(table, mentions, terms, topic)   # -> list[ExtractedAttribute], sentence spans in the chunk
    (topic: the mention the chunk is about, relation_pairs.chunk_topic, or None)

What is read (precision first: an answer may cite the fact), each date as the text writes it ("12 March 1955",
"March 1955", "1955"; a vague one, "c. 1900" or "early 1950s", never):
  * a parenthesis right after a person's name: "NAME (born 12 March 1955)", "NAME (12 March 1900 – 5 May 1980)",
    "NAME (1900–1980)", "NAME (German: ...; 1900–1980)", "NAME (died 1980)"; a range is a life only when its years
    lie 15 to 120 apart ("Lynn Harrell (1986–1993)" in a list of office holders is a tenure);
  * a life event whose subject opens its clause: "NAME was born (in PLACE) on/in DATE", "NAME, a chemist, died in
    DATE", "NAME, born DATE, ..."; a pronoun subject ("He was born in 1955") is the chunk's first person;
  * "NAME was founded / established / formed / incorporated / launched / opened (by ...) in DATE" and "Founded in
    DATE, NAME ..." (inception, never of a person); "NAME was published / released in DATE" and "NAME is a 1999
    American film" (publicationDate, only of a creative work), a creative work's year in brackets after its name
    ("the novel Brother Man (1954)") and its year right before it ("the 1972 arcade game Pong", "1987's Let It
    Loose"); "NAME is a French magazine, founded in DATE" and "NAME is the sixth
    album by the band X, originally released on DATE", when the description names a class on the subject's branch
    and no other class that could have the attribute;
  * the same founding and publication sentences about the chunk's topic named by "It" or "The <noun>" opening the
    sentence ("It was released in 1999.", "The school was founded in 1985.", "Founded in 1754, the newspaper is
    ..."): "It" when the topic's class is in the attribute's domain, "The <noun>" when, besides, the noun is a label
    of an ontology class on the topic's own branch ("film" for a Film or a CreativeWork, never "song" for an Album:
    that is another work). The topic's class is its name's settled one (the surest mention's, as the extraction
    keeps it).
The subject is always a mention the extractor typed: birthDate and deathDate only on a Person, publicationDate only on
a CreativeWork (the ontology makes them the properties' domains, and a Person or a work the reasoner would infer from
a wrong subject could clash with a disjoint class). Every pattern is linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from attest.extract.dates import _DAY, _MONTH, _YEAR
from attest.extract.mentions import Mention
from attest.extract.models import ExtractedAttribute
from attest.extract.ontology_terms import OntologyTerms
from attest.extract.token_table import TokenTable

# a date as written: day month year, month day year, month year, or a year (never vague, never relative)
# (beside a day and a month a year of one to three digits is a year too: "11 November 875")
_EARLY = r"(?<![\w$£€#.,/-])[1-9][0-9]{0,2}(?![\w%]|[.,/][0-9]|-[0-9])"
DATE = (rf"(?:{_DAY}\s+(?:of\s+)?{_MONTH},?\s+(?:{_YEAR}|{_EARLY})|{_MONTH}\s+{_DAY},\s+(?:{_YEAR}|{_EARLY})"
        rf"|{_MONTH}\s+{_DAY}\s+{_YEAR}"
        rf"|{_MONTH},?\s+{_YEAR}|{_YEAR})")
_VAGUE = r"(?<!c\.\s)(?<!ca\.\s)(?<!circa\s)"
_DASH = r"\s*(?:[-–—]|\bto\b)\s*"

# the whole parenthesis after a name: an optional lead ("German: Franz Müller;") then the dates
_PAREN = re.compile(
    rf"\s*\(\s*(?:[^();]{{0,120}};\s*)?(?:"
    rf"(?:born|b\.)\s+(?:on\s+|in\s+)?(?P<born>{DATE})"
    rf"|(?:died|d\.)\s+(?:on\s+|in\s+)?(?P<died>{DATE})"
    rf"|(?P<from>{DATE})(?:,\s*[^()\d;,]{{1,40}}(?:,\s*[^()\d;,]{{1,40}})?)?{_DASH}(?P<to>{DATE})(?:,\s*[^()\d;]{{1,60}})?"
    rf")\s*\)", re.IGNORECASE)

# a work's year in brackets right after its name (a closing quote between): "the novel Brother Man (1954)"
_WORK_YEAR = re.compile(rf"[\"”’']?\s*\(\s*(?P<date>{_YEAR})\s*\)")

# what may stand between a clause's subject and its verb: "was", "had", one comma-enclosed apposition
_LINK = re.compile(r"\A\s*(?:,[^,;()]{1,80},\s*)?(?:(?:was|is|were|had\s+been|has\s+been)\s+)?\Z", re.IGNORECASE)
_PRONOUN = re.compile(r"\A\s*(?:he|she)\s+(?:was\s+)?\Z", re.IGNORECASE)

_BORN = re.compile(rf"\bborn(?:\s+in\s+[^.;(),\d]{{1,60}}?(?:,\s*[^.;(),\d]{{1,40}}?)?)?\s+(?:on|in)\s+{_VAGUE}(?P<date>{DATE})"
                   rf"|\bborn\s+(?P<bare>{DATE})", re.IGNORECASE)
_DIED = re.compile(rf"\bdied(?:\s+in\s+[^.;(),\d]{{1,60}}?(?:,\s*[^.;(),\d]{{1,40}}?)?)?\s+(?:on|in)\s+{_VAGUE}(?P<date>{DATE})",
                   re.IGNORECASE)
# ("launched" and "opened": a service, station or building comes into being, "opened to the public in", "to rail
# traffic in"; never "opened for <a band>", which has no place in the gap)
_FOUNDED = re.compile(rf"\b(?:founded|established|formed|incorporated|created|launched|opened)"
                      rf"(?:\s+(?:by|as)\s+[^.;(),\d]{{1,60}}?)?(?:\s+to\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?)?"
                      rf"(?:\s+in\s+[^.;(),\d]{{1,40}}?)?\s+(?:on|in)\s+{_VAGUE}(?P<date>{DATE})", re.IGNORECASE)
# (between the verb and its date: who, as what, where or on what medium, "released as the second single from the
# album on 9 January 2009", "released on DVD on 13 November 2003"; no digit, comma or clause break in that gap)
_PUBLISHED = re.compile(rf"\b(?:first\s+)?(?:published|released|premiered)"
                        rf"(?:\s+(?:by|as|through|under|via|on|in|for)\s+[^.;(),\d]{{1,60}}?)?"
                        rf"\s+(?:on|in)\s+{_VAGUE}(?P<date>{DATE})", re.IGNORECASE)
_OPENING = re.compile(rf"\A\s*(?P<verb>founded|established|formed|launched|opened|published|released|first\s+published)"
                      rf"\s+(?:on|in)\s+(?P<date>{DATE}),\s*\Z", re.IGNORECASE)
# a sentence's subject that names the chunk's topic by a pronoun or by its class: "It was", "The school had been";
# after an opening participle ("Founded in 1754, it is ...") the same words before a verb
_ADVERB = r"(?:(?:first|originally|officially|formally|later)\s+)?"
_NOUN = r"(?P<noun>(?!(?:was|is|had|has)\b)[a-z]+(?:\s+(?!(?:was|is|had|has)\b)[a-z]+)?)"  # one or two words
_IT = re.compile(rf"\A\s*[Ii]t\s+(?:(?:was|is|had\s+been|has\s+been)\s+)?{_ADVERB}\Z")
_THE_NOUN = re.compile(rf"\A\s*[Tt]he\s+{_NOUN}\s+(?:(?:was|is|had\s+been|has\s+been)\s+)?{_ADVERB}\Z")
_AFTER_OPENING = re.compile(rf"\s*(?:(?P<it>[Ii]t)|[Tt]he\s+{_NOUN})\s+(?:is|was|has|had|became|remains)\b")
# "NAME is a French magazine, founded in ...", "NAME is the sixth studio album by the band X, originally released on":
# a definition whose description holds no comma, bracket, quote or clause break, then the participle
_DEFINITION = re.compile(r"\A\s*(?:is|was|are|were)\s+(?:a|an|the)\s+(?P<words>[^.;:()\"“”,]{1,150}?)\s*,?\s*"
                         r"(?:(?:originally|first|later|officially)\s+)?\Z", re.IGNORECASE)
_CLAUSE_WORDS = frozenset({"which", "that", "who", "whose", "where", "when", "while", "and", "or", "but"})
# "NAME is a 1999 American film": the year, then up to three modifiers, then a class label of a creative work
_YEAR_WORK = re.compile(rf"\s*(?:is|was)\s+(?:a|an)\s+(?P<date>{_YEAR})\s+(?P<words>(?:[\w-]+\s+){{0,3}}[\w-]+)",
                        re.IGNORECASE)

# the class a subject must have (None: anything but a person), by attribute
REQUIRED = {"birthDate": "Person", "deathDate": "Person", "inception": None, "publicationDate": "CreativeWork"}
EVENTS = (("birthDate", _BORN), ("deathDate", _DIED), ("inception", _FOUNDED), ("publicationDate", _PUBLISHED))
_FUNCTION_WORDS = frozenset({"of", "on", "by", "about", "for", "in", "and", "or", "with", "from", "to", "the", "a", "an"})


def literal_attributes(table: TokenTable, mentions: list[Mention], terms: OntologyTerms,
                       topic: Mention | None = None) -> list[ExtractedAttribute]:
    """The dated attributes the chunk's sentences state about its typed mentions (refused sentences: none passed);
    `topic`, the mention the chunk is about, is the subject that "It" and "The <noun>" may name."""
    text = table.text
    typed = sorted((m for m in mentions if m.type is not None), key=lambda m: m.start_char)
    person = next((m for m in typed if terms.is_subtype(m.type or "", "Person")), None)
    lines = list(_lines(table))
    about = _Topic(topic, _settled_type(typed, topic), terms) if topic is not None and _defined(text, lines, topic) else None
    found: list[ExtractedAttribute] = []
    for start, end in lines:
        in_sent = [m for m in typed if start <= m.start_char < end]
        for subject, predicate, value, confidence in _sentence(text, start, end, in_sent, person, about, terms):
            found.append(ExtractedAttribute(subject=subject.text, predicate=predicate, value=" ".join(value.split()),
                                            confidence=confidence, start=start, end=end))
    return found


_DEFINED_BY = re.compile(r"[\"”’'.]{0,2}\s*(?:[,(]|(?:is|was|are|were|has|had|became|remains|refers)\b)")


def _defined(text: str, lines: list[tuple[int, int]], topic: Mention) -> bool:
    """Whether the topic is the subject of its sentence: it opens it (after "The" at most) and a verb, a comma or a
    parenthesis follows, quotes aside ("The Tule Lake camp was ...": "Tule Lake" is no subject, the camp is)."""
    start = next((s for s, e in lines if s <= topic.start_char < e), None)
    return (start is not None and text[start:topic.start_char].strip().strip("\"“‘'").lower() in ("", "the")
            and _DEFINED_BY.match(text, topic.end_char) is not None)


def _settled_type(typed: list[Mention], topic: Mention) -> str | None:
    """The class the extraction keeps for the topic's name: its surest mention's (the earlier on a tie)."""
    same = [m for m in typed if m.text.casefold() == topic.text.casefold()] or [topic]
    return max(same, key=lambda m: m.confidence).type


class _Topic:
    """The chunk's topic as a subject the sentence names by "It" or "The <noun>" (the noun a label of its class)."""

    def __init__(self, mention: Mention, kind: str | None, terms: OntologyTerms) -> None:
        self.mention, self.kind, self.terms = mention, kind, terms

    def named_by(self, it: bool, noun: str | None, required: str | None) -> bool:
        """Whether "It" (`it`) or "The `noun`" may name the topic as the subject of an attribute needing `required`:
        the topic's class is in the attribute's domain and the noun's class on the topic's own branch."""
        kind, terms = self.kind, self.terms
        if kind is None or not _fits_type(terms, kind, required):
            return False
        if it:
            return True
        if noun is None:
            return False
        named = terms.normalize_type(noun) or terms.normalize_type(noun.split()[-1])
        return (named is not None and _fits_type(terms, named, required)
                and _same_branch(terms, kind, named))


def _same_branch(terms: OntologyTerms, a: str, b: str) -> bool:
    """Whether one class is the other or under it (a Film and a CreativeWork; not an Album and a Song)."""
    return terms.is_subtype(a, b) or terms.is_subtype(b, a)


def fits(terms: OntologyTerms, type_name: str, predicate: str) -> bool:
    """Whether an entity of this class may carry the attribute (its domain, as these rules read it)."""
    return predicate in REQUIRED and _fits_type(terms, type_name, REQUIRED[predicate])


def _lines(table: TokenTable) -> Iterator[tuple[int, int]]:
    """Character spans of the sentences, cut at line breaks too: a heading is no part of the sentence under it."""
    text = table.text
    for s, e in table.sentences:
        start, end = table.start_char(s), table.end_char(e)
        for line in re.finditer(r"[^\n]+", text[start:end]):
            if line.group().strip():
                yield start + line.start() + len(line.group()) - len(line.group().lstrip()), start + line.end()


_TITLE_BEFORE = re.compile(r"(?:\bof|\b(?!(?:Sir|Dame|Lord|Lady|Dr|Saint|St|King|Queen)\b)[A-Z][\w'-]*)\.?\s*\Z")


def _fragment(before: str) -> bool:
    """Whether the mention is likely the tail of a longer name the extractor cut ("2nd Prince of Solms-Braunfels",
    "7th Viscount Powerscourt"): "of" or a capitalized word right before it (an honorific such as "Sir" aside)."""
    return bool(before.strip()) and _TITLE_BEFORE.search(before) is not None


def _lifespan(born: str, died: str) -> bool:
    """Whether two dates in a parenthesis read as a life: 15 to 120 years apart ("(1986–1993)" after a name is a
    tenure more often than a life)."""
    first, last = re.findall(r"[12][0-9]{3}", born)[-1:], re.findall(r"[12][0-9]{3}", died)[-1:]
    return bool(first and last) and 15 <= int(last[0]) - int(first[0]) <= 120


def _fits(terms: OntologyTerms, mention: Mention, required: str | None) -> bool:
    return _fits_type(terms, mention.type or "", required)


def _fits_type(terms: OntologyTerms, kind: str, required: str | None) -> bool:
    if required is None:  # inception: anything that comes into being, never a person
        return not terms.is_subtype(kind, "Person")
    return terms.is_subtype(kind, required)


def _sentence(text: str, start: int, end: int, in_sent: list[Mention], person: Mention | None, about: _Topic | None,
              terms: OntologyTerms) -> Iterator[tuple[Mention, str, str, float]]:
    for m in in_sent:  # "NAME (born ...)", "NAME (1900–1980)"
        if _fragment(text[start:m.start_char]):
            continue
        if terms.is_subtype(m.type or "", "Person") and (match := _PAREN.match(text, m.end_char, end)):
            if match.group("born"):
                yield m, "birthDate", match.group("born"), 0.9
            elif match.group("died"):
                yield m, "deathDate", match.group("died"), 0.9
            elif _lifespan(match.group("from"), match.group("to")):
                yield m, "birthDate", match.group("from"), 0.9
                yield m, "deathDate", match.group("to"), 0.9
        elif terms.is_subtype(m.type or "", "CreativeWork") and (match := _WORK_YEAR.match(text, m.end_char, end)):
            yield m, "publicationDate", match.group("date"), 0.8  # "their book Anti-Oedipus (1972)"
        elif terms.is_subtype(m.type or "", "CreativeWork") and (year := _year_before(text, start, m, terms)):
            yield m, "publicationDate", year, 0.8  # "the 1972 arcade game Pong", "1987's Let It Loose"
    for predicate, pattern in EVENTS:
        for match in pattern.finditer(text, start, end):
            if not (date := match.group("date") or match.groupdict().get("bare")):
                continue
            subject, confidence = _subject(text, start, match.start(), in_sent, person, about, REQUIRED[predicate], terms)
            if subject is not None:
                yield subject, predicate, date, confidence
    if (comma := text.find(",", start, end)) > 0 and (opening := _OPENING.match(text[start:comma + 1])):
        after = next((m for m in in_sent if m.start_char > comma), None)
        verb = opening.group("verb").lower()
        predicate = "publicationDate" if verb.endswith(("published", "released")) else "inception"
        if after is not None and text[comma + 1:after.start_char].strip().lower() in ("", "the") and _fits(terms, after, REQUIRED[predicate]):
            yield after, predicate, opening.group("date"), 0.85
        elif (about is not None and about.mention.start_char < start and (named := _AFTER_OPENING.match(text, comma + 1, end))
              and about.named_by(bool(named.group("it")), named.group("noun"), REQUIRED[predicate])):
            yield about.mention, predicate, opening.group("date"), 0.8  # "Founded in 1754, it is ..."
    if in_sent and text[start:in_sent[0].start_char].strip().lower() in ("", "the") and terms.is_subtype(in_sent[0].type or "", "CreativeWork"):
        first = in_sent[0]
        if (work := _YEAR_WORK.match(text, first.end_char, end)) and _names_work(work.group("words"), terms):
            yield first, "publicationDate", work.group("date"), 0.85


# a year that dates the work named right after it: "YEAR's NAME", "<the/her/Atari's> YEAR [modifiers class] NAME";
# what stands before the year, the words between it and the name (none, or a description ending in a class label)
_YEAR_BEFORE = re.compile(rf"(?P<lead>\S*)\s*(?P<date>{_YEAR})(?P<own>['’]s)?(?P<words>(?:\s+[\w-]+){{0,4}}?)\s*,?\s*[\"“]?\s*\Z")
_LOWER_WORDS = re.compile(r"[ \t]+[a-z]+(?:[ \t]+[a-z]+)?")
_DETERMINERS = frozenset({"the", "a", "an", "his", "her", "its", "their", "our", "my", "your"})


def _year_before(text: str, sent_start: int, work: Mention, terms: OntologyTerms) -> str | None:
    """The year written right before a creative work's name as its own: "1987's Let It Loose", "the 2012 film The
    Power of Few", "her 1928 novel X", "the 1972 Atari arcade game Pong", "Taito's 1986 Arkanoid". The year follows a
    determiner or a possessive, or is itself possessive, and the words between it and the name, if any, end in a
    class label of a creative work ("In 1997 starred in telenovela X" dates the starring, "in 2010 X" anything)."""
    found = _YEAR_BEFORE.search(text, max(sent_start, work.start_char - 90), work.start_char)
    after = _LOWER_WORDS.match(text, work.end_char)
    if found is None or (after and (_ends_in_work(after.group().split()[:1], terms) or _ends_in_work(after.group().split(), terms))):
        return None  # "a 1936 British film": the name is a modifier of the work the sentence is about
    lead, words = found.group("lead"), found.group("words").split()
    if not (found.group("own") or lead.lower() in _DETERMINERS or re.search(r"\w['’]s\Z", lead)):
        return None
    return found.group("date") if not words or _ends_in_work(words, terms) else None


def _ends_in_work(words: list[str], terms: OntologyTerms) -> bool:
    """Whether the last one or two words are a class label of a creative work ("film", "arcade game", "studio album"),
    after modifiers only (no function word among them)."""
    if any(w.lower() in _FUNCTION_WORDS for w in words):
        return False
    spans = [" ".join(words[-2:]), words[-1]] if len(words) > 1 else words[-1:]
    return any((kind := terms.normalize_type(w.lower())) is not None and terms.is_subtype(kind, "CreativeWork") for w in spans)


def _defines(gap: str, subject: Mention, between: list[Mention], required: str | None, terms: OntologyTerms) -> bool:
    """Whether the words between the subject and the participle define the subject, so that the participle is its
    own: "is a/an/the" and a description naming a class on the subject's branch and no other class that could have the
    attribute ("the sixth album by the band X" is fine, a band is not published; "a song from the album Y" is not),
    with no clause break and no typed name the date might be about instead."""
    found = _DEFINITION.match(gap)
    kind = subject.type or ""
    if found is None or any(m.type is not None and not m.weak and _fits(terms, m, required) for m in between):
        return False
    words = found.group("words").lower().split()
    if _CLAUSE_WORDS & set(words):
        return False
    spans = [" ".join(words[i:i + n]) for n in (1, 2) for i in range(len(words) - n + 1)]
    named = {t for span in spans if (t := terms.normalize_type(span)) is not None}
    own = {t for t in named if _fits_type(terms, t, required) and _same_branch(terms, kind, t)}
    return bool(own) and not any(_fits_type(terms, t, required) for t in named - own)


def _names_work(words: str, terms: OntologyTerms) -> bool:
    """Whether a word of the phrase is a class label of a creative work ("film", "novel", "album"), after modifiers
    only ("American comedy film"; not "report on film")."""
    for word in words.split():
        if word.lower() in _FUNCTION_WORDS:
            return False
        if (kind := terms.normalize_type(word)) is not None and terms.is_subtype(kind, "CreativeWork"):
            return True
    return False


def _subject(text: str, sent_start: int, verb_at: int, in_sent: list[Mention], person: Mention | None,
             about: _Topic | None, required: str | None, terms: OntologyTerms) -> tuple[Mention | None, float]:
    """The clause's subject before the verb: a mention that opens the sentence and only "was" or an apposition between,
    an apposition's head ("NAME, born 1955,"), for a sentence-opening "he" or "she" the chunk's first person, and for
    "It" or "The <noun>" the chunk's topic (named before this sentence)."""
    before = [m for m in in_sent if m.end_char <= verb_at]
    if before:
        last = before[-1]
        between = text[last.end_char:verb_at]
        first = before[0]
        opens = text[sent_start:first.start_char].strip().lower() in ("", "the")  # "The X Institute was founded"
        if opens and _LINK.match(text[first.end_char:verb_at]) and _fits(terms, first, required):
            return first, 0.85
        if opens and _fits(terms, first, required) and _defines(text[first.end_char:verb_at], first, before[1:], required, terms):
            return first, 0.8  # "Ici Paris is a French magazine, founded in 1941."
        if between.strip() == "," and _fits(terms, last, required):  # "NAME, born 1955, ..."
            return last, 0.85
        return None, 0.0
    head = text[sent_start:verb_at]
    if required == "Person" and person is not None and person.start_char < sent_start and _PRONOUN.match(head):
        return person, 0.8
    if about is not None and about.mention.start_char < sent_start:
        it, the = _IT.match(head), _THE_NOUN.match(head)
        if (it or the) and about.named_by(it is not None, the.group("noun") if the else None, required):
            return about.mention, 0.8
    return None, 0.0
