"""Where the rule extractor's capitalized names start and end (the boundary rules of rules_names applied to a chunk).

Interface (used by attest.extract.rules only):
    NameSpans                       -> RuleExtractor's candidate-name pass (a mixin: it reads the extractor's
                                       relation phrases and its cue, fuzzy-match and verb methods)
    NameSpans._candidate_spans(doc, taken) -> [(start, end)] token spans of capitalized names outside `taken`
    is_name_word(text), name_like(token), shape_strong(text), line_or_sentence_starts(doc), PRONOUNS
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from attest.extract import rules_lexicon as lex
from attest.extract import rules_names as names
from attest.extract.rules_lowercase import cue_before as lowercase_cue_before
from attest.extract.token_table import tokens

PRONOUNS = frozenset({"i", "he", "she", "it", "we", "they", "you", "his", "her", "its", "their", "him", "them", "us", "me",
                      "this", "these", "those", "that"})


def name_like(token) -> bool:
    return is_name_word(token.text)


@lru_cache(maxsize=65_536)
def is_name_word(text: str) -> bool:
    if not text or not (text[0].isalpha() or text[0].isdigit()):
        return False
    return text[0].isupper() or any(c.isupper() for c in text[1:])


@lru_cache(maxsize=65_536)
def shape_strong(text: str) -> bool:
    """Looks like a product or acronym, not capitalized common words: a word with inner capitals or digits."""
    return any(any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word) for word in text.split())


@lru_cache(maxsize=65_536)
def _has_alnum(text: str) -> bool:
    return any(c.isalnum() for c in text)


def line_or_sentence_starts(doc: Doc) -> list[bool]:
    """Whether each token is the first word of a sentence or a line ("## Bilinear models", "- Oxigraph uses")."""
    table = tokens(doc)
    starts: list[bool] = []
    fresh = True
    for word_text, sent_start in zip(table.words, table.sent_start):
        if sent_start or "\n" in word_text:
            fresh = True
        word = _has_alnum(word_text)
        starts.append(fresh and word)
        if word:
            fresh = False
        # a token's whitespace is one space or none (more is a token of its own): no line ends after it
    return starts


class NameSpans:
    """Candidate names for RuleExtractor (mixed into it; uses its phrases, _cue_after, _fuzzy_known, _verb_follows)."""

    # what the host class provides (declared only: no value or method is set here)
    phrases: dict[tuple[str, ...], list[str]]
    _cue_after: Callable[[Doc, int, int], str | None]
    _fuzzy_known: Callable[[str], str | None]
    _verb_follows: Callable[[Doc, int], bool]

    def _candidate_spans(self, doc: Doc, taken: set[int]) -> list[tuple[int, int]]:
        table = tokens(doc)  # plain lists: indexing a Doc creates a Token object each time
        words, lower, space = table.words, table.lower, table.space
        starts = line_or_sentence_starts(doc)
        named = [is_name_word(w) for w in words]
        n = len(words)
        capitalized_elsewhere = {words[k] for k in range(n) if named[k] and not starts[k]}
        spans: list[tuple[int, int]] = []
        # fixed first: a heading written again in the text, Title Case in double quotes
        fixed = [span for span in self._heading_tokens(doc) if not taken.intersection(range(*span))]
        quoted, glue = names.quoted_titles(words, space, named)
        for span in quoted:
            if not taken.intersection(range(*span)) and not any(s < span[1] and span[0] < e for s, e in fixed):
                fixed.append(span)
        blocked = set(taken)
        after_office: set[int] = set()  # first tokens of names an office was cut from: people ("Admiral X")
        doc.user_data["after_office"] = after_office
        for start, end in fixed:
            spans.append((start, end))
            blocked.update(range(start, end))
        i = 0
        while i < n:
            if i in blocked or not named[i] or lower[i] in lex.CALENDAR or \
                    (lower[i] in STOP_WORDS and not self._article_opens_name(words, lower, named, starts, blocked, i)):
                i += 1
                continue
            j = self._name_end(words, lower, space, named, blocked, glue, i)
            while j > i + 1 and (words[j - 1] in {"-", "/", "&", "–"} or lower[j - 1] in {"of", "for", "on", "the"}
                                 or words[j - 1] in names.QUOTES):
                j -= 1
            for start, end in self._trim(words, lower, named, starts, capitalized_elsewhere, i, j, after_office):
                if end == start + 1 and self._common_noun(doc, words, lower, named, start):
                    continue
                lone_initial = end == start + 1 and starts[start]
                if lone_initial and not (shape_strong(words[start]) or words[start] in capitalized_elsewhere
                                         or self._fuzzy_known(words[start]) or self._cue_after(doc, start, end)
                                         or " ".join(lower[end:end + 2]) in {", which", ", who"} or self._verb_follows(doc, end)
                                         or (end + 1 < n and lower[end] in {"and", "or"} and named[end + 1])):
                    continue
                spans.append((start, end))
            i = j
        return sorted(spans)

    def _common_noun(self, doc: Doc, words: list[str], lower: list[str], named: list[bool], k: int) -> bool:
        """A capitalized common word alone ("the Church", "the State", "Board") is a noun, not a name, unless the text
        treats it as one: a people or language ("French"), a listed place, a name in a list with others ("Turtle and
        JSON-LD"), a type cue after it ("Explosion, a company"), or a relation phrase just before or after it ("uses
        the Transformer", "written in Rust")."""
        word, n = words[k], len(words)
        if not lex.is_common(lower[k]) or names.people_or_language(word) or word in lex.places() or shape_strong(word):
            return False
        listed = (k + 2 < n and lower[k + 1] in {"and", "or", ","} and named[k + 2]) or \
            (k >= 2 and lower[k - 1] in {"and", "or", ","} and named[k - 2])
        if listed or self._cue_after(doc, k, k + 1) or self._verb_follows(doc, k + 1) \
                or lowercase_cue_before(doc, k, tokens(doc).sentence_of[k]):
            return False
        for back in range(max(0, k - 4), k):
            gap = [w for w in words[back:k] if w.lower() not in {"the", "a", "an"}]
            if gap and lex.norm_gap(gap)[0] in self.phrases:
                return False
        return True

    def _heading_tokens(self, doc: Doc) -> list[tuple[int, int]]:
        """Token spans of a heading's words written again in the text (rules_names.heading_spans)."""
        found = []
        for start, end in names.heading_spans(tokens(doc).text):
            span = doc.char_span(start, end)
            if span is None:
                continue
            # a heading inside a longer name is not cut out of it ("DBpedia" in "The DBpedia Association coordinates")
            after = doc[span.end] if span.end < len(doc) else None
            before = doc[span.start - 1] if span.start > 0 else None
            if (after is not None and span[-1].whitespace_ and name_like(after) and not after.is_stop) or \
                    (before is not None and name_like(before) and not before.is_stop and "\n" not in before.text
                     and not before.is_sent_start):
                continue
            found.append((span.start, span.end))
        return found

    @staticmethod
    def _article_opens_name(words: list[str], lower: list[str], named: list[bool], starts: list[bool], blocked: set[int],
                            i: int) -> bool:
        """A capitalized article or determiner inside a sentence starts the name it is written with ("the newspaper
        The Sacramento Bee", "a cover of Here You Come Again"), unless a period ends the word before it (a sentence
        the sentencizer missed: "in the U.S. It was") or it is a pronoun."""
        return not (starts[i] or not words[i][:1].isupper() or lower[i] in PRONOUNS or i + 1 >= len(words)
                    or not named[i + 1] or i + 1 in blocked or (i > 0 and words[i - 1].endswith(".")))

    def _name_end(self, words: list[str], lower: list[str], space: list[bool], named: list[bool], blocked: set[int],
                  glue: set[int], i: int) -> int:
        """Where the name starting at token i ends: capitalized words and the connectors written inside names."""
        n = len(words)
        j = i + 1

        def name_at(k: int) -> bool:
            return k < n and named[k] and k not in blocked

        while j < n and j not in blocked:
            if named[j] and lower[j] not in lex.CALENDAR:
                if lower[j] in STOP_WORDS and words[j - 1].endswith(".") and len(words[j - 1]) > 1:
                    break  # "in the U.S. It was": a sentence the sentencizer did not split
                j += 1
            elif j in glue:
                j += 1  # Wilfried "Willi" Schneider
            elif self._number_joins(words, lower, space, i, j):
                j += 1  # versions: SPARQL 1.1, OWL 2, Python 3
            elif words[j] in {"-", "/", "–"} and not space[j - 1] and not space[j] and j + 1 < n \
                    and self._dash_joins(words, named, i, j):
                j += 2  # JSON-LD, RDF/XML, Berners-Lee, FB15k-237, Cambodia–Vietnam, Heian-kyō
            elif lower[j] in {"of", "for", "on"} and self._of_joins(words, lower, i, j):
                # "of the" inside a name follows one word: "Order of the Garter", not "Kansas City Chiefs of the NFL"
                article = lower[j + 1] == "the" and j - i == 1 if j + 1 < n else False
                if name_at(j + 1 + article) and lower[j + 1 + article] not in STOP_WORDS:
                    j += 1 + article  # University of Oxford, Journal of Psychotherapy, Order of the Rising Sun
                else:
                    break
            elif words[j] in {"'s", "’s", "'", "’"} and not space[j - 1] and name_at(j + 1) \
                    and (lex.is_common(lower[j - 1]) or lower[j - 1] in names.IRREGULAR_PLURALS):
                j += 1  # People's Party, Workers' Union: a common noun's possessive inside a name
            elif lower[j] in lex.NAME_PARTICLES or lower[j] in names.INNER_PARTICLES:
                k = j
                while k < n and (lower[k] in lex.NAME_PARTICLES or lower[k] in names.INNER_PARTICLES):
                    k += 1
                if k - j <= 3 and name_at(k) and words[k][:1].isupper() and \
                        (lower[j] in lex.NAME_PARTICLES or k - j > 1 or lower[j] in names.LONE_PARTICLES):
                    j = k  # Guido van Rossum, Bruck an der Leitha, Sogn og Fjordane
                else:
                    break
            elif words[j] == "&" and name_at(j + 1) and j - i == 1 and not name_at(j + 2):
                j += 1  # Mumford & Sons, AT&T; not two people of a pair ("Ann Lee & Bo Chen")
            elif lower[j] == "and" and name_at(j + 1) and self._and_joins(words, lower, named, blocked, i, j):
                j += 1  # Office of Management and Budget, Song and Dance Ensemble, French and Indian War
            else:
                break
        return j

    @staticmethod
    def _and_joins(words: list[str], lower: list[str], named: list[bool], blocked: set[int], i: int, j: int) -> bool:
        """ "and" inside a name, not between two: after "X of A" when a capitalized common word follows and ends the
        name ("Office of Management and Budget"), or between a common word or a people and a name whose head says
        what the whole is ("Song and Dance Ensemble", "Fish and Wildlife Service", "French and Indian War")."""
        n = len(words)
        after = j + 1
        if lower[after] in STOP_WORDS:
            return False
        if "of" in lower[i:j] and lex.word_like(lower[after]) and \
                not (after + 1 < n and named[after + 1] and after + 1 not in blocked):
            return True
        if not (lex.is_common(lower[j - 1]) or (j - i == 1 and names.people_or_language(words[i]))):
            return False
        k = after
        while k < n and k - after < 3 and named[k] and k not in blocked and lower[k] not in STOP_WORDS:
            k += 1
        head = lower[k - 1]
        return k > after and not (k < n and (named[k] or lower[k] == "of")) and (
            head in lex.ORG_WORDS or head in names.ORG_HEADS or head in names.EVENT_TYPE_HEADS or head in names.PLACE_HEADS)

    @staticmethod
    def _number_joins(words: list[str], lower: list[str], space: list[bool], i: int, j: int) -> bool:
        """A number after a name is its version ("SPARQL 1.1", "Python 3", "Windows 10"), not a year or a count
        ("the 1956 contest", "Royals 14, White Sox 5")."""
        word = words[j]
        if not (word[0].isdigit() and word.replace(".", "").isalnum() and space[j - 1]):
            return False
        if "." in word.strip("."):
            return True
        digits = word.rstrip(".")
        if not digits.isdigit() or len(digits) > 3 or names.YEAR.match(digits):
            return False
        after = words[j + 1:j + 3]
        return not ((after[:1] and (after[0].lower() in lex.CALENDAR or after[0].lower() in names.ABBREVIATIONS
                                    or (after[0][:1].isupper() and not after[0].isupper()) or after[0][:1].isdigit()))
                    or (len(after) == 2 and after[0] in {",", "-", "–"} and after[1][:1].isupper()))

    @staticmethod
    def _dash_joins(words: list[str], named: list[bool], i: int, j: int) -> bool:
        """A hyphen, slash or en dash without spaces joins two parts of one name, unless both are words of a phrase
        ("Colombian/French") or peoples ("African-American": two names); a lower-case part only when it is no English
        syllable ("Heian-kyō", "Kim Won-yong"; not "Paris-based", "Retrieval-augmented")."""
        left, right = words[j - 1], words[j + 1]
        if words[j] == "–" and right[:1].isdigit():
            return False  # a score or a range: "London–15", "1914–1918"
        if not (named[j + 1] or right[:1].isdigit()):
            return words[j] != "/" and right[:1].isalpha() and len(right) <= 4 and not lex.word_like(right)
        if words[j] == "/" and left[1:].islower() and right[1:].islower() and len(left) > 2 and len(right) > 2:
            return False  # Colombian/French, Hill/High: two words, not one compound
        return True

    @staticmethod
    def _of_joins(words: list[str], lower: list[str], i: int, j: int) -> bool:
        """ "X of Y" is one name ("Journal of Psychotherapy Integration", "Franz Joseph I of Austria", "Bank of
        America") unless X is only an office or title ("Mayor of Calgary", "Prime Minister of Thailand"); "X for Y"
        and "X on Y" only when X holds an organization word ("Institute for ...", "Council on ...")."""
        left = lower[i:j]
        if lower[j] != "of":
            return any(w in lex.ORG_WORDS for w in left)
        return not all(names.is_office(w) for w in words[i:j] if w not in {"-", "–"})

    def _trim(self, words: list[str], lower: list[str], named: list[bool], starts: list[bool],
              capitalized_elsewhere: set[str], i: int, j: int, after_office: set[int]) -> list[tuple[int, int]]:
        """The names inside the run i:j: without the titles and offices before a person ("Vice Admiral X", "Georgia
        Governor X" -> Georgia, X), without a sentence's opening word that leads into the name ("Following X"),
        none for offices alone ("President", "Prime Minister"), a common abbreviation ("TV") or a common word alone
        (but for a people or a language: "French"), peoples joined by a
        hyphen apart ("African-American"), and an ordinal or an event's year before it ("9th District", "2006 Winter
        Olympics")."""
        if starts[i] and j - i >= 2 and names.opener(words[i]) and words[i] not in capitalized_elsewhere and named[i + 1]:
            i += 1
        k = i
        while k < j - 1 and not names.is_office(words[k]):
            k += 1
        if k < j - 1 and names.is_office(words[k]):
            m = k
            while m < j - 1 and (names.is_office(words[m]) or words[m] in {"-", "–"}):
                m += 1
            rest = [w for w in words[m:j] if w not in {"-", "–"}]
            # only before a name: "General Motors", "Prince Edward Island" are names themselves
            if rest and named[m] and lower[m] not in STOP_WORDS and not (len(rest) == 1 and lex.is_common(rest[0])) \
                    and rest[-1].lower() not in lex.ORG_WORDS and rest[-1].lower() not in names.PLACE_HEADS:
                after_office.add(m)
                before = [(i, k)] if k > i and not all(names.is_office(w) for w in words[i:k]) else []
                return [span for start, end in before + [(m, j)]
                        for span in self._trim(words, lower, named, starts, set(), start, end, after_office)]
        if all(names.is_office(w) or w in {"-", "–"} for w in words[i:j]) or \
                (j - i == 1 and (lower[i] in names.ABBREVIATIONS or len(words[i].rstrip(".")) == 1)):
            return []  # an office, a common abbreviation or a letter alone
        if j - i == 3 and words[i + 1] in {"-", "–"} and names.demonym(words[i]) and names.demonym(words[i + 2]):
            return [(i, i + 1), (i + 2, j)]  # "African-American": two peoples; "Cambodian-Vietnamese War" is one name
        if i > 0 and (names.ORDINAL.match(words[i - 1]) or (names.YEAR.match(words[i - 1]) and lower[j - 1] in names.EVENT_HEADS)):
            i -= 1  # "the 9th District", "the 2006 Winter Olympics"
        return [(i, j)]
