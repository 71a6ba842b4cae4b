"""Valid time read from text: the date expressions that qualify a stated relation in its clause, as valid_from/valid_to.

Interface:

    dated = DatedText(text, reference=date(2026, 11, 26))   # reference: the document's or turn's date, or None
    dated.validity((s_start, s_end), (o_start, o_end), (sent_start, sent_end)) -> Validity(valid_from, valid_to)
    partial_date("2019-03", end=True) -> date(2019, 3, 31)  # a date a model may send in part; None if unreadable

What is read (precision first: a wrong date on a fact closes the wrong fact later):
  * only expressions a preposition or a relative phrase governs: "since 2019", "from 2001 to 2005", "between
    2001 and 2005", "until 2005", "in March 2020", "on 3 March 2020", "during 2019", "(since 2019)", "last month",
    "two years ago"; a bare year ("Alice Smith (1970-2020)", "the 2019 report") is never a validity;
  * vague or relative-to-an-event expressions are recognised and give nothing: "early 2019", "mid-2019",
    "around 2019", "before 2019", "after 2019", "by 2019", "as of 2019";
  * a year or month as a start means its first day, as an end its last day; relative expressions resolve against
    the reference date and are ignored without one;
  * which expression belongs to the relation: one that opens the sentence right before the first name ("Since
    2019, A works for B"), one inside the words between the names when they form one clause ("A has, since 2019,
    worked for B"), or one right after the second name in its clause (at most four words on, no comma, "which",
    "and"...: "A works for B in Redmond since 2019"). Dates in appositions and relative clauses ("A, born in
    1970, ..."; "..., which was founded in 1975") belong to something else; so does a date beside a life event
    ("born", "died"), or beside names joined by function words alone ("Wembley Arena in London in November 1979");
  * a relation the words between the names do not state (a classifier's) takes only a date that opens its sentence;
  * a negated clause gives no dates; a clause that states an end ("left", "resigned", "retired") reads "in 2005"
    as the last year of the relation, and "since" not at all;
  * two different readings of the same bound, or an end before the start, give no date.
Every pattern is linear (no nested repetition), so a megabyte of text is read in one pass.
"""

from __future__ import annotations

import bisect
import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

MONTHS = {name: i for i, names in enumerate(
    (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
     ("dec", "december")), start=1) for name in names}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"(?:3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)?"
# a year is four digits that are no part of a number, an amount or an id ("$2019", "2019.5", "2019-20 season");
# the first year of a range may be followed by "-2005", the second preceded by "2001-"
# and a count is no year either: "in 2000 ways", "1500 people" (a plural or a unit in lower case after it; a word in
# "ss" is none: "in 2008 less than", "in 1990 across Europe")
_COUNTED = r"(?-i:\s+(?:(?!(?:as|is|was|has|its|his|this|thus|us)\b)[a-z]*[a-rt-z]s|people|ms|km|kg)\b)"
_YEAR = rf"(?<![\w$£€#.,/-])[12][0-9]{{3}}(?![\w%]|[.,/][0-9]|-[0-9]|{_COUNTED})"
_YEAR_OPENS = rf"(?<![\w$£€#.,/-])[12][0-9]{{3}}(?![\w%]|[.,/][0-9]|-[0-9]{{1,3}}(?![0-9])|{_COUNTED})"
_YEAR_CLOSES = rf"(?<![\w$£€#.,/])[12][0-9]{{3}}(?![\w%]|[.,/][0-9]|-[0-9]|{_COUNTED})"
_LAST_OR_AGO = (r"(?:(?:last|past|previous)\s+(?:week|month|year)|yesterday"
                r"|(?:[1-9][0-9]?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
                r"\s+(?:days?|weeks?|months?|years?)\s+ago)")
_RELATIVE = rf"(?:{_LAST_OR_AGO}|this\s+(?:week|month|year)|today)"


def _point(year: str) -> str:
    return (rf"(?:[12][0-9]{{3}}-[01][0-9]-[0-3][0-9](?![\w-])"          # 2020-03-03
            rf"|{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{year}"                  # 3 March 2020, 3rd of March, 2020
            rf"|{_MONTH}\s+{_DAY},?\s+{year}"                            # March 3, 2020
            rf"|{_MONTH},?\s+(?:of\s+)?{year}"                           # March 2020, March of 2020
            rf"|{year}"
            rf"|{_RELATIVE}"
            rf"|{_MONTH}(?![\w-]))")                                      # May (needs a reference date)


_POINT = _point(_YEAR)
_OPEN_END = r"(?:present|now|today|date)"
EXPRESSION = re.compile(
    rf"\b(?P<vague>(?:before|after|by|as\s+of|around|about|circa|approximately|c\.|early|mid|late|mid-|end\s+of"
    rf"|the\s+end\s+of|the\s+beginning\s+of|the\s+start\s+of)\s*{_POINT}(?!\w))"
    rf"|\b(?P<range>(?:from|between)\s+(?P<r1>{_point(_YEAR_OPENS)})\s*(?:to|until|till|through|thru|and|-|–|—)\s*"
    rf"(?:(?P<open>{_OPEN_END})\b|(?P<r2>{_point(_YEAR_CLOSES)})))"
    rf"|\b(?P<since>(?:since|from|starting(?:\s+(?:in|on|from))?|beginning(?:\s+(?:in|on))?|as\s+from)\s+(?P<s>{_POINT}))"
    rf"|\b(?P<until>(?:until|till|through|thru|up\s+to)\s+(?P<u>{_POINT}))"
    rf"|\b(?P<at>(?P<prep>in|on|during)\s+(?P<a>{_POINT}))"
    rf"|(?<!the\s)\b(?P<relative>{_LAST_OR_AGO})\b",  # "over the last year" is no start
    re.IGNORECASE)

# the words an expression can open with: EXPRESSION is tried only there (twice as fast as trying it everywhere)
_OPENERS = re.compile(r"(?=[A-Za-z0-9])(?<![\w.])(?:before|after|by|as|around|about|circa|approximately|c|early|mid|late|end|the|from"
                      r"|between|since|starting|beginning|until|till|through|thru|up|in|on|during|last|past|previous"
                      r"|yesterday|[1-9][0-9]?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b",
                      re.IGNORECASE)
_ISO_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DMY = re.compile(rf"({_DAY})\s+(?:of\s+)?({_MONTH}),?\s+([0-9]{{4}})", re.IGNORECASE)
_MDY = re.compile(rf"({_MONTH})\s+({_DAY}),?\s+([0-9]{{4}})", re.IGNORECASE)
_MY = re.compile(rf"({_MONTH}),?\s+(?:of\s+)?([0-9]{{4}})", re.IGNORECASE)
_Y = re.compile(r"[0-9]{4}")
_M = re.compile(_MONTH, re.IGNORECASE)
_REL = re.compile(r"(last|past|previous|this)\s+(week|month|year)|(yesterday|today)"
                  r"|(\w+)\s+(day|week|month|year)s?\s+ago", re.IGNORECASE)

# words that end the clause a date can qualify, and words that change what the clause says
_BREAK = re.compile(r"[;:.!?()\[\]—]|,|\b(?:and|but|or|which|who|whom|whose|that|where|when|while|whereas|after|before"
                    r"|because|although|though|since|until|if|unless)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no\s+longer|no\s+more|neither|nor)\b|n't\b", re.IGNORECASE)
_ENDING = re.compile(r"\b(?:left|leaves|leave|quit|quits|resigned|resigns|retired|retires|departed|departs|"
                     r"stepped\s+down|steps\s+down|ended|ends|stopped|stops|ceased|ceases|divorced|divorces|"
                     r"graduated|graduates)\b", re.IGNORECASE)
# a life event beside the names: its date is the event's ("born on June 3, 1977 in Mexico City"), not a validity
_LIFE_EVENT = re.compile(r"\b(?:born|died|birth|death|buried)\b", re.IGNORECASE)
# words that say no state or event of their own: names joined by these alone ("Wembley Arena in London") are a
# description, and a date after them dates something else ("concerts at Wembley Arena in London in November 1979")
_FUNCTION_WORDS = frozenset("in at of on the a an 's ’s , ( ) - – — / and".split())
_FUTURE = re.compile(r"\b(?:will|shall|going\s+to|next|plans?\s+to|planning\s+to)\b|'ll\b", re.IGNORECASE)
MAX_GAP = 200  # characters between the two names beyond which their words are no single clause
MAX_TAIL_WORDS = 4  # words between the second name and a date that follows it
MAX_TAIL_EXPRESSIONS = 3  # date expressions read after the second name ("in Redmond since 2019 until 2021")


@dataclass(frozen=True)
class Period:
    """The days a date expression names: a day, a month or a year."""

    first: date
    last: date


@dataclass(frozen=True)
class Validity:
    """When a relation holds, as far as the text says."""

    valid_from: date | None = None
    valid_to: date | None = None


@dataclass(frozen=True)
class Expression:
    """A date expression found in the text and what it says as a start and an end (None: it says nothing of it)."""

    start: int
    end: int
    kind: str  # range | since | until | at | during | relative | vague
    begins: Period | None
    ends: Period | None
    bare_month: bool = False  # "in May": read only in a clause that is not about the future


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month(year: int, month: int) -> Period | None:
    if not (1 <= month <= 12 and 1 <= year <= 9999):
        return None
    return Period(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))


def _year(year: int) -> Period | None:
    return Period(date(year, 1, 1), date(year, 12, 31)) if 1 <= year <= 9999 else None


def _months_before(reference: date, n: int) -> Period | None:
    index = reference.year * 12 + reference.month - 1 - n
    return _month(index // 12, index % 12 + 1)


def _month_number(text: str) -> int:
    key = text.rstrip(".").lower()
    return MONTHS.get(key) or MONTHS.get(key[:3], 0)


def _day_number(text: str) -> int:
    return int(re.sub(r"[a-z]", "", text.lower()))


def read_point(text: str, reference: date | None) -> Period | None:
    """The period one point expression names ("March 2020", "2019", "last month"); None when unreadable or relative
    without a reference date."""
    text = text.strip()
    if m := _ISO_DAY.fullmatch(text):
        day = _day(int(m[1]), int(m[2]), int(m[3]))
        return Period(day, day) if day else None
    if (m := _DMY.fullmatch(text)) or (m := _MDY.fullmatch(text)):
        day_text, month_text = (m[1], m[2]) if m.re is _DMY else (m[2], m[1])
        day = _day(int(m[3]), _month_number(month_text), _day_number(day_text))
        return Period(day, day) if day else None
    if m := _MY.fullmatch(text):
        return _month(int(m[2]), _month_number(m[1]))
    if _Y.fullmatch(text):
        return _year(int(text))
    if m := _REL.fullmatch(text):
        return _relative(m, reference)
    if _M.fullmatch(text) and text[0].isupper() and reference is not None:  # the latest such month until the reference
        month = _month_number(text)
        return _month(reference.year - (month > reference.month), month)
    return None


def _relative(m: re.Match[str], reference: date | None) -> Period | None:
    if reference is None:
        return None
    if m[3]:
        day = reference - timedelta(days=m[3].lower() == "yesterday")
        return Period(day, day)
    which, unit = (m[1].lower(), m[2].lower()) if m[1] else (m[4].lower(), m[5].lower())
    n = 0 if which == "this" else 1 if which in {"last", "past", "previous"} else \
        int(which) if which.isdigit() else NUMBERS.get(which, -1)
    if n < 0:
        return None
    if unit == "year":
        return _year(reference.year - n)
    if unit == "month":
        return _months_before(reference, n)
    if unit == "day" or not m[1]:  # "three weeks ago" is a day, as "three days ago" is
        day = reference - timedelta(days=n * (7 if unit == "week" else 1))
        return Period(day, day)
    monday = reference - timedelta(days=reference.weekday() + 7 * n)
    return Period(monday, monday + timedelta(days=6))


class DatedText:
    """The date expressions of one text, found once, and the validity they give each relation stated in it."""

    def __init__(self, text: str, reference: date | None = None) -> None:
        self.text, self.reference = text, reference
        self.expressions: list[Expression] = []
        end = 0
        for opener in _OPENERS.finditer(text):
            if opener.start() >= end and (m := EXPRESSION.match(text, opener.start())):
                self.expressions.append(self._expression(m))
                end = m.end()
        self._starts = [e.start for e in self.expressions]

    def _expression(self, m: re.Match[str]) -> Expression:
        ref = self.reference
        start, end = m.span()
        if m["vague"]:
            return Expression(start, end, "vague", None, None)
        if m["range"]:
            first = read_point(m["r1"], ref)
            last = None if m["open"] else read_point(m["r2"], ref)
            if first is None or (last is None and not m["open"]):
                return Expression(start, end, "vague", None, None)
            return Expression(start, end, "range", first, last)
        if m["since"]:
            return Expression(start, end, "since", read_point(m["s"], ref), None, _M.fullmatch(m["s"]) is not None)
        if m["until"]:
            return Expression(start, end, "until", None, read_point(m["u"], ref), _M.fullmatch(m["u"]) is not None)
        if m["at"]:
            point = read_point(m["a"], ref)
            kind = "during" if m["prep"].lower() == "during" else "at"
            return Expression(start, end, kind, point, point, _M.fullmatch(m["a"]) is not None)
        return Expression(start, end, "relative", read_point(m["relative"], ref), None)

    def validity(self, first: tuple[int, int], second: tuple[int, int], sentence: tuple[int, int], *,
                 opening_only: bool = False) -> Validity:
        """What the dates of the sentence say of the relation between the names at spans `first` and `second`.
        `opening_only`: read only a date that opens the sentence, for a relation the words between the names do not
        state (a classifier's): a date inside or after them dates their own verb ("published in 1939")."""
        left, right = sorted((first, second))
        s0, s1 = sentence
        if not (s0 <= left[0] and right[1] <= s1) or left[1] > right[0] or right[0] - left[1] > MAX_GAP:
            return Validity()  # far apart, the names are in no one clause a date could qualify
        text = self.text
        gap = text[left[1]:right[0]]
        found: list[Expression] = []
        # the sentence's opening adverbial, right before the first name: "Since 2019, A works for B"
        i = bisect.bisect_left(self._starts, s0)
        if i < len(self.expressions) and (e := self.expressions[i]).end <= left[0] and e.start - s0 <= 8 \
                and not text[s0:e.start].strip(" \t\n\"'*->#") and text[e.end:left[0]].strip() in ("", ","):
            found.append(e)
        # inside the words between the names: "A has, since 2019, worked for B"; the names must be in one clause
        # whose words say something of their own, with no life event beside them
        inside = self._within(left[1], right[0])
        if not self._one_clause(gap, left[1], inside) or _LIFE_EVENT.search(text[max(s0, left[0] - 40):left[0]] + gap):
            return Validity()
        if opening_only:
            return self._combine(found, gap, gap + " " + " ".join(text[e.start:e.end] for e in found))
        found.extend(inside)
        # right after the second name, in its clause: "A works for B in Redmond since 2019"
        pos, first_after = right[1], bisect.bisect_left(self._starts, right[1])
        for e in self.expressions[first_after:first_after + MAX_TAIL_EXPRESSIONS]:
            if e.end > s1 or e.start - pos > MAX_GAP:
                break
            between = text[pos:e.start]
            parenthesis = between.strip() == "(" and text[e.end:e.end + 1] == ")" and e.kind in ("since", "range")
            if not parenthesis and (_BREAK.search(between) or len(between.split()) > MAX_TAIL_WORDS):
                break
            found.append(e)
            pos = e.end + (1 if parenthesis else 0)
        clause = gap + " " + " ".join(text[e.start:e.end] for e in found)
        return self._combine(found, gap, clause)

    def _within(self, start: int, end: int) -> list[Expression]:
        i = bisect.bisect_left(self._starts, start)
        j = bisect.bisect_left(self._starts, end)
        return [e for e in self.expressions[i:j] if e.end <= end]

    def _one_clause(self, gap: str, offset: int, inside: list[Expression]) -> bool:
        """No clause break among the words between the names, once their date expressions are set aside; a date
        alone between two commas is part of the clause ("A has, since 2019, worked for B")."""
        masked = list(gap)
        for e in inside:
            masked[e.start - offset:e.end - offset] = " " * (e.end - e.start)
        if not any(word.lower() not in _FUNCTION_WORDS for word in "".join(masked).split()):
            return False
        pieces = "".join(masked).split(",")
        if len(pieces) > 1:
            if len(pieces) % 2 == 0 or any(p.strip() for p in pieces[1:-1:2]):
                return False
            pieces = ["".join(pieces)]
        return not _BREAK.search(pieces[0])

    def _combine(self, found: list[Expression], gap: str, clause: str) -> Validity:
        if not found or _NEGATION.search(clause):
            return Validity()
        ending, future = _ENDING.search(gap) is not None, _FUTURE.search(clause) is not None
        starts: set[date] = set()
        ends: set[date] = set()
        for e in found:
            if e.kind == "vague" or (e.bare_month and future):
                return Validity()  # the clause's time is not read exactly: no date rather than a wrong one
            if ending:  # "left Contoso in 2005": the relation's last year
                period = e.ends or e.begins
                if e.kind in ("at", "relative", "until") and period is not None:
                    ends.add(period.last)
                elif e.kind in ("since", "during"):
                    return Validity()
                elif e.kind == "range" and e.begins:
                    starts.add(e.begins.first)
                    if e.ends:
                        ends.add(e.ends.last)
                continue
            if e.begins is not None and e.kind != "until":
                starts.add(e.begins.first)
            if e.ends is not None and e.kind in ("range", "until", "during"):
                ends.add(e.ends.last)
        valid_from = starts.pop() if len(starts) == 1 else None
        valid_to = ends.pop() if len(ends) == 1 else None
        if valid_from and valid_to and valid_to < valid_from:
            return Validity()
        return Validity(valid_from, valid_to)


_PARTIAL = re.compile(r"\s*([12][0-9]{3})(?:-([01]?[0-9])(?:-([0-3]?[0-9]))?)?(?:T[0-9:.+\-Z]*)?\s*")


def partial_date(value: object, *, end: bool) -> date | None:
    """A date a model sent, whole or in part ("2019", "2019-03", "2019-03-04", a datetime string, a year number):
    a year or month as a start is its first day, as an end its last; anything unreadable is None, never an error."""
    if isinstance(value, date):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not (m := _PARTIAL.fullmatch(value)):
        return None
    year = int(m[1])
    if m[3]:
        return _day(year, int(m[2]), int(m[3]))
    period = _month(year, int(m[2])) if m[2] else _year(year)
    return None if period is None else period.last if end else period.first


__all__ = ["DatedText", "Expression", "Period", "Validity", "partial_date", "read_point"]
