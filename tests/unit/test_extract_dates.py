"""Valid time from text: which date expressions qualify a relation in its sentence, the day conventions, relative
dates against a reference, partial dates from a model, and linear time on hostile input."""

from __future__ import annotations

import time
from datetime import date

import pytest

from attest.extract.dates import DatedText, partial_date

REF = date(2026, 11, 26)  # a Thursday


def validity(sentence: str, a: str, b: str, reference: date | None = None) -> tuple[date | None, date | None]:
    """The validity the sentence gives the relation between the first mentions of `a` and `b`."""
    i, j = sentence.index(a), sentence.index(b)
    found = DatedText(sentence, reference).validity((i, i + len(a)), (j, j + len(b)), (0, len(sentence)))
    return found.valid_from, found.valid_to


D = date


@pytest.mark.parametrize("sentence,a,b,expected", [
    ("Alice Smith has worked for Contoso since 2019.", "Alice Smith", "Contoso", (D(2019, 1, 1), None)),
    ("Alice Smith worked for Contoso from 2001 to 2005.", "Alice Smith", "Contoso", (D(2001, 1, 1), D(2005, 12, 31))),
    ("Alice Smith worked for Contoso from 2001-2005.", "Alice Smith", "Contoso", (D(2001, 1, 1), D(2005, 12, 31))),
    ("Alice Smith worked for Contoso from 2001 – 2005.", "Alice Smith", "Contoso", (D(2001, 1, 1), D(2005, 12, 31))),
    ("Alice Smith worked for Contoso from 2001 until 2005.", "Alice Smith", "Contoso", (D(2001, 1, 1), D(2005, 12, 31))),
    ("Alice Smith worked for Contoso between March 2001 and June 2005.", "Alice Smith", "Contoso",
     (D(2001, 3, 1), D(2005, 6, 30))),
    ("Alice Smith worked for Contoso from 2019 to present.", "Alice Smith", "Contoso", (D(2019, 1, 1), None)),
    ("Alice Smith worked for Contoso from 2019.", "Alice Smith", "Contoso", (D(2019, 1, 1), None)),
    ("Alice Smith worked for Contoso until 2005.", "Alice Smith", "Contoso", (None, D(2005, 12, 31))),
    ("Alice Smith worked for Contoso until February 2024.", "Alice Smith", "Contoso", (None, D(2024, 2, 29))),
    ("Alice Smith joined Fabrikam in March 2020.", "Alice Smith", "Fabrikam", (D(2020, 3, 1), None)),
    ("In March 2020, Alice Smith joined Fabrikam.", "Alice Smith", "Fabrikam", (D(2020, 3, 1), None)),
    ("Since 2019 Falcon has used PostgreSQL.", "Falcon", "PostgreSQL", (D(2019, 1, 1), None)),
    ("Alice Smith joined Contoso on 3 March 2020.", "Alice Smith", "Contoso", (D(2020, 3, 3), None)),
    ("Alice Smith joined Contoso on March 3rd, 2020.", "Alice Smith", "Contoso", (D(2020, 3, 3), None)),
    ("Alice Smith joined Contoso on 2020-03-03.", "Alice Smith", "Contoso", (D(2020, 3, 3), None)),
    ("Alice Smith joined Contoso in Sept. 2021.", "Alice Smith", "Contoso", (D(2021, 9, 1), None)),
    ("Alice Smith worked for Contoso during 2019.", "Alice Smith", "Contoso", (D(2019, 1, 1), D(2019, 12, 31))),
    ("Alice Smith has, since 2019, worked for Contoso.", "Alice Smith", "Contoso", (D(2019, 1, 1), None)),
    ("Alice Smith works for Contoso in Redmond since 2019.", "Alice Smith", "Contoso", (D(2019, 1, 1), None)),
    ("Alice Smith was CEO of Contoso (since 2019).", "Alice Smith", "Contoso", (D(2019, 1, 1), None)),
    ("Alice Smith was CEO of Contoso (from 2001 to 2005).", "Alice Smith", "Contoso", (D(2001, 1, 1), D(2005, 12, 31))),
    ("Alice Smith left Contoso in 2005.", "Alice Smith", "Contoso", (None, D(2005, 12, 31))),
    ("Alice Smith resigned from Contoso in June 2005.", "Alice Smith", "Contoso", (None, D(2005, 6, 30))),
    ("Contoso employs Alice Smith since 2019.", "Contoso", "Alice Smith", (D(2019, 1, 1), None)),
    ("Zorbly was developed by Jane Smith in 2011.", "Zorbly", "Jane Smith", (D(2011, 1, 1), None)),
    ("Jane Roe graduated from Columbia University in 1835.", "Jane Roe", "Columbia University", (None, D(1835, 12, 31))),
    ("In 1990 Enasa was sold to Iveco.", "Enasa", "Iveco", (D(1990, 1, 1), None)),
])
def test_dates_stated_with_a_relation_are_read(sentence, a, b, expected):
    assert validity(sentence, a, b) == expected


@pytest.mark.parametrize("sentence,a,b", [
    ("Alice Smith works at Contoso.", "Alice Smith", "Contoso"),                          # no date at all
    ("Alice Smith, born in 1970, works at Contoso.", "Alice Smith", "Contoso"),           # apposition
    ("Alice Smith (1950–2010) worked for Contoso.", "Alice Smith", "Contoso"),            # a lifespan
    ("Zorbly was developed by Jane Smith (1950–2010).", "Zorbly", "Jane Smith"),          # the object's lifespan
    ("Alice Smith was CEO of Contoso (2001–2005).", "Alice Smith", "Contoso"),            # bare range: whose?
    ("Alice Smith works for Contoso, which was founded in 1975.", "Alice Smith", "Contoso"),  # relative clause
    ("Alice Smith works for Contoso, founded in 1975.", "Alice Smith", "Contoso"),
    ("Contoso, founded in 1975, employs Alice Smith.", "Contoso", "Alice Smith"),
    ("Alice Smith, who moved to Paris in 2010, works for Contoso.", "Alice Smith", "Contoso"),
    ("Alice Smith joined Contoso after graduating in 2010.", "Alice Smith", "Contoso"),   # another event's date
    ("Alice Smith joined Contoso and Bob Jones joined Fabrikam in 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith joined Contoso in early 2019.", "Alice Smith", "Contoso"),              # vague
    ("Alice Smith joined Contoso in mid-2019.", "Alice Smith", "Contoso"),
    ("Alice Smith joined Contoso around 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith joined Contoso before 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith worked for Contoso as of 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith worked for Contoso by the end of 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith worked for Contoso over the last year.", "Alice Smith", "Contoso"),
    ("Alice Smith worked for Contoso from 2005 to 2001.", "Alice Smith", "Contoso"),      # end before start
    ("Since 2018, Alice Smith has worked for Contoso since 2019.", "Alice Smith", "Contoso"),  # two starts
    ("Alice Smith has not worked for Contoso since 2019.", "Alice Smith", "Contoso"),     # negated
    ("Alice Smith no longer works for Contoso since 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith left Contoso since 2019.", "Alice Smith", "Contoso"),
    ("Alice Smith paid Contoso $2019 in 2000 ways.", "Alice Smith", "Contoso"),           # amounts are no years
    ("Falcon uses PostgreSQL 2019.1 in production.", "Falcon", "PostgreSQL"),
    ("Alice Smith joined Contoso on February 30, 2020.", "Alice Smith", "Contoso"),       # no such day
    ("The 2019 report says Alice Smith works for Contoso.", "Alice Smith", "Contoso"),
    ("Alice Smith works for Contoso. Bob Jones joined it in 2019.", "Alice Smith", "Contoso"),
    ("Ernesto Vargas was born on June 3, 1977 in Mexico City.", "Ernesto Vargas", "Mexico City"),  # a life event
    ("The songs were taken from concerts at Wembley Arena in London in November 1979.", "Wembley Arena", "London"),
])
def test_dates_about_something_else_are_not_validity(sentence, a, b):
    sentence_end = sentence.find(". ") + 1 or len(sentence)
    i, j = sentence.index(a), sentence.index(b)
    found = DatedText(sentence, REF).validity((i, i + len(a)), (j, j + len(b)), (0, sentence_end))
    assert (found.valid_from, found.valid_to) == (None, None)


@pytest.mark.parametrize("sentence,expected", [
    ("Alice Smith moved to Fabrikam last month.", (D(2026, 10, 1), None)),
    ("Alice Smith joined Fabrikam last year.", (D(2025, 1, 1), None)),
    ("Alice Smith joined Fabrikam two years ago.", (D(2024, 1, 1), None)),
    ("Alice Smith joined Fabrikam 3 months ago.", (D(2026, 8, 1), None)),
    ("Alice Smith joined Fabrikam ten days ago.", (D(2026, 11, 16), None)),
    ("Alice Smith joined Fabrikam yesterday.", (D(2026, 11, 25), None)),
    ("Alice Smith has worked for Fabrikam since last week.", (D(2026, 11, 16), None)),
    ("Alice Smith has worked for Fabrikam since this year.", (D(2026, 1, 1), None)),
    ("Alice Smith joined Fabrikam in May.", (D(2026, 5, 1), None)),      # the latest May until the reference
    ("Alice Smith joined Fabrikam in December.", (D(2025, 12, 1), None)),
    ("Alice Smith worked for Fabrikam until last month.", (None, D(2026, 10, 31))),
    ("Alice Smith will join Fabrikam in May.", (None, None)),            # a plan: which May is not said
    ("Alice Smith joined Fabrikam in march.", (None, None)),             # "march" in lower case is no month
])
def test_relative_dates_resolve_against_the_reference(sentence, expected):
    assert validity(sentence, "Alice Smith", "Fabrikam", REF) == expected


def test_a_relation_the_words_do_not_state_takes_only_the_date_that_opens_the_sentence():
    opening = "In 2009, Jill Johnson recorded the song on the album Music Row II."
    i, j = opening.index("Jill Johnson"), opening.index("Music Row II")
    assert DatedText(opening).validity((i, i + 12), (j, j + 12), (0, len(opening)), opening_only=True).valid_from \
        == D(2009, 1, 1)
    later = "Across the Waters is a novel by the writer Mulk Raj Anand first published in 1939."
    i, j = later.index("Across the Waters"), later.index("Mulk Raj Anand")
    spans = ((i, i + 17), (j, j + 14), (0, len(later)))
    assert DatedText(later).validity(*spans).valid_from == D(1939, 1, 1)  # read, were "by" the relation's words
    assert DatedText(later).validity(*spans, opening_only=True).valid_from is None


def test_relative_dates_without_a_reference_give_nothing():
    for sentence in ("Alice Smith moved to Fabrikam last month.", "Alice Smith joined Fabrikam in May.",
                     "Alice Smith joined Fabrikam two years ago."):
        assert validity(sentence, "Alice Smith", "Fabrikam") == (None, None)
    assert validity("Alice Smith joined Fabrikam last month, in March 2020.", "Alice Smith", "Fabrikam") == (None, None)


def test_names_in_other_sentences_or_out_of_order_give_nothing():
    text = "Alice Smith works for Contoso since 2019."
    dated = DatedText(text)
    assert dated.validity((0, 11), (22, 29), (0, 20)).valid_from is None  # the object lies outside the sentence
    assert dated.validity((0, 11), (5, 29), (0, len(text))).valid_from is None  # overlapping spans


@pytest.mark.parametrize("value,end,expected", [
    ("2019", False, D(2019, 1, 1)), ("2019", True, D(2019, 12, 31)),
    ("2019-03", False, D(2019, 3, 1)), ("2024-02", True, D(2024, 2, 29)),
    ("2019-03-04", False, D(2019, 3, 4)), ("2019-3-4", True, D(2019, 3, 4)),
    ("2019-03-04T10:00:00Z", False, D(2019, 3, 4)), (2019, True, D(2019, 12, 31)),
    (D(2020, 1, 2), False, D(2020, 1, 2)),
    ("2019-13", False, None), ("2019-02-30", False, None), ("sometime", False, None), ("", False, None),
    ("19", False, None), (1700000000, False, None), (True, False, None), (None, False, None), ([2019], False, None),
    ("last year", False, None),
])
def test_partial_dates_from_a_model(value, end, expected):
    assert partial_date(value, end=end) == expected


@pytest.mark.parametrize("hostile", [
    "since " * 170_000,
    "in 2019 " * 125_000,
    "from 2001 to " * 77_000,
    "1" * 1_000_000,
    " " * 1_000_000,
    "Alice Smith worked for Contoso, " * 31_000,
    "May " * 250_000,
])
def test_a_megabyte_run_on_sentence_is_read_in_linear_time(hostile):
    start = time.perf_counter()
    dated = DatedText(hostile, REF)
    for k in range(0, 200):  # relations all over the one sentence
        at = k * 4000
        dated.validity((at, at + 5), (at + 10, at + 15), (0, len(hostile)))
    assert time.perf_counter() - start < 15  # ~3 s on one busy core; a quadratic pattern takes hours
