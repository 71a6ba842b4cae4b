"""Extractive answers from passages: what a question asks for (read from its grammar), the values and names read from
passage sentences, candidate typing, and whole answers over a small Markdown corpus ingested offline in process: a
number with its unit, a date, the question's own names left out, a choice answered from two dated passages, and a
question no passage supports declined."""

from __future__ import annotations

import pytest

from attest.answer.asks import Asks, asks
from attest.answer.evidence import Candidate, Sentence, descriptions, names, values
from attest.answer.extractive import _as_asked
from attest.answer.fit import describe, fit
from tests.ingest_support import corpus_api, extractive_answer

CORPUS = {
    "bridge.md": "# Harbor Bridge\n\nThe Harbor Bridge is a suspension bridge in Port Elling. It was opened on 12 May 1931. "
                 "The Harbor Bridge carries 6,200 vehicles per day. It was designed by Helen Quist with Tomas Brell.\n",
    "town.md": "# Port Elling\n\nPort Elling is a town in the county of Westmere. At the 2011 census, Port Elling had a "
               "population of 4,870.\n",
    "mill.md": "# Ashby Mill\n\nAshby Mill is a village in the county of Westmere, on the Elling river.\n",
    "carrow.md": "# Carrow\n\nCarrow is a village in the county of Dunmore, known for its market.\n",
    "owls.md": "# The Quiet Owls\n\nThe Quiet Owls are a folk band from Port Elling. The Quiet Owls were formed in 1998 "
               "by two sisters.\n",
    "fenwick.md": "# Mara Fenwick\n\nMara Fenwick (3 March 1901 – 9 October 1977) was a poet of Westmere. Her "
                  "last book appeared shortly before her death in 1977.\n",
    "lind.md": "# Ora Lind\n\nOra Lind is a Westmere footballer who plays as a goalkeeper for Elling Rovers.\n",
    "glass.md": "# Glass Lanterns\n\nGlass Lanterns is a rock band from Westmere. Glass Lanterns were formed in 2004 by "
                "three brothers.\n",
}


def _sentence(text: str) -> Sentence:
    return Sentence("chunk", "doc", 0, len(text), text, 0, 1.0, 1.0, "Title")


@pytest.mark.parametrize("question,kind,cls", [
    ("Who designed the bridge?", "person", "Person"),
    ("The manuscript is in the hand of a musician whose godfather is whom?", "person", "Person"),
    ("The soap opera was created by who?", "person", "Person"),
    ("Where was the society founded?", "place", "Location"),
    ("The publishing house is based where?", "place", "Location"),
    ("Scott is a consultant who has worked with the mayor of what city?", "place", "City"),  # "who" is relative
    ("When was the bridge opened?", "date", None),
    ("In what year was the bridge opened?", "date", None),
    ("The actor died on which date?", "date", None),
    ("How many vehicles does the bridge carry?", "number", None),
    ("Which university did the author attend?", "class", "University"),
    ("Which Danish band from Copenhagen released the album?", "class", "MusicalGroup"),
    ("What is the name of the pop band founded by the actor?", "class", "MusicalGroup"),
    ("Is the river longer than the canal?", "yesno", None),
    ("The director Iannucci has an award. Does the director Sira also have one?", "yesno", None),
])
def test_what_a_question_asks_for_by_its_grammar(terms, question, kind, cls):
    found = asks(question, terms)
    assert (found.kind, found.cls) == (kind, cls)


def test_the_unit_noun_and_word_beside_what_is_asked(terms):
    assert asks("How many vehicles does the bridge carry?", terms).unit == "vehicle"
    assert asks("How many times was he selected?", terms).unit == "time"
    which = asks("He is the father of which Bollywood actress?", terms)
    assert (which.kind, which.noun, which.near) == ("any", "actress", ("fathe",))  # its first letters
    assert asks("The network was founded by who?", terms).near == ("found",)
    assert asks("Who directed the film?", terms).near == ("direc",)
    assert asks("On which date did the actor die?", terms).noun == "date"


@pytest.mark.parametrize("question,options,order,kind", [
    ("Which band was formed first, The Quiet Owls or Glass Lanterns?", ("The Quiet Owls", "Glass Lanterns"),
     "earliest", "choice"),
    ("Who is the oldest, Sid Haig or Vic Darchinyan?", ("Sid Haig", "Vic Darchinyan"), "earliest", "choice"),
    ("Which plant is larger, the Pterocarya or the Cotula?", ("Pterocarya", "Cotula"), "most", "choice"),
    ("Which singer is American, Mark King or Nick Hexum?", ("Mark King", "Nick Hexum"), "stated", "choice"),
    ("Are Medici and Senet both board games?", ("Medici", "Senet"), "stated", "yesno"),
    ("Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?",
     ("Woman's Viewpoint", "Pick Me Up"), "stated", "yesno"),
])
def test_choice_questions_name_their_options(terms, question, options, order, kind):
    found = asks(question, terms)
    assert (found.kind, found.options, found.order) == (kind, options, order)


def test_same_questions_compare_the_named_values(terms):
    found = asks("Are Nantong and Jingdezhen situated in the same province?", terms)
    assert (found.kind, found.options, found.order, found.noun) == ("yesno", ("Nantong", "Jingdezhen"), "same",
                                                                     "province")


def test_no_choice_in_an_or_between_lower_case_words(terms):
    assert asks("Who directed the film that was shot in or around Leland?", terms).options == ()


def test_a_number_is_read_with_its_unit_and_a_date_whole():
    found = values(_sentence("The singer has sold more than 150 million records since 12 May 1931, and 6,960 of them "
                             "live there; she was a two-time champion."), 1.0)
    read = {(c.kind, c.text, c.unit) for c in found}
    assert ("number", "150 million", "records") in read
    assert ("date", "12 May 1931", "") in read
    assert ("number", "6,960", "") in read  # the word after it is no unit
    assert ("number", "two-time", "time") in read
    assert not any(c.text in ("12", "1931") for c in found if c.kind == "number")  # inside the date


def test_names_are_capitalized_runs_not_adjectives_or_a_sentences_first_word():
    found = [c.text for c in names(_sentence("In 2005 the American publisher Two Dollar Radio moved to Columbus, "
                                             "Ohio, with Carl Philipp Emanuel Bach."), 1.0)]
    assert "Two Dollar Radio" in found and "Carl Philipp Emanuel Bach" in found and "Columbus, Ohio" in found
    assert "American" not in found and "In" not in found


def test_a_description_says_what_its_subject_is():
    found = descriptions(_sentence("Amy Johnson (1903 - 1941) was a pioneering English aviator who flew solo."), 1.0)
    assert [(c.text, c.subject) for c in found] == [("pioneering English aviator", "Amy Johnson")]


def test_candidates_are_typed_by_what_the_passages_call_them(terms):
    sentences = [_sentence("Glass Lanterns, a rock band from Westmere, toured with Mara Quist (born 1950)."),
                 _sentence("Harbor Bridge lies in Australia.")]
    band = asks("Which band toured with her?", terms)
    person = asks("Who toured with the band?", terms)
    city = asks("In which city does the bridge lie?", terms)
    lanterns, quist, australia = (next(c for c in names(s, 1.0) if c.text == t) for s, t in
                                  ((sentences[0], "Glass Lanterns"), (sentences[0], "Mara Quist"),
                                   (sentences[1], "Australia")))
    assert fit(band, lanterns, [], describe("Glass Lanterns", sentences), terms) == 1.0  # "a rock band" -> MusicalGroup
    assert fit(person, quist, [], describe("Mara Quist", sentences), terms) == 1.0  # "(born 1950)"
    assert fit(person, lanterns, [], describe("Glass Lanterns", sentences), terms) == 0.0  # said to be a band
    assert fit(city, australia, [], describe("Australia", sentences), terms) == 0.0  # a country is no city


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    with corpus_api(tmp_path_factory.mktemp("extractive"), CORPUS) as client:
        yield client


def test_a_description_names_the_role_a_sentence_gives_its_subject():
    found = descriptions(_sentence("Ora Lind (born 1990) is a Westmere footballer who plays as a goalkeeper for Elling "
                                   "Rovers."), 1.0)
    assert [(c.text, c.subject) for c in found] == [("Westmere footballer", "Ora Lind"), ("goalkeeper", "Ora Lind")]
    found = descriptions(_sentence("He is best known as the lead vocalist and songwriter of the band."), 1.0)
    assert [(c.text, c.subject) for c in found] == [("lead vocalist", "He")]
    assert descriptions(_sentence("He plays for Elling Rovers as well."), 1.0) == []


def test_a_what_question_is_answered_by_the_role_beside_its_verb(api):
    assert _first(extractive_answer(api, "What position does Ora Lind play?")) == "goalkeeper"


def _first(report: dict) -> str | None:
    return (report["answers"][0].get("value") or report["answers"][0]["label"]) if report["answers"] else None


def test_a_number_with_its_unit_is_answered_from_a_passage(api):
    report = extractive_answer(api, "How many vehicles does the Harbor Bridge carry per day?")
    assert _first(report) == "6,200" and report["answers"][0]["value"] == "6,200"
    assert "6,200 vehicles per day" in report["text"] and "characters" in report["text"]


def test_a_date_is_answered_from_a_passage(api):
    assert _first(extractive_answer(api, "When was the Harbor Bridge opened?")) == "12 May 1931"


def test_a_life_span_gives_the_birth_and_death_dates_as_precise_as_asked(api):
    assert _first(extractive_answer(api, "When was the Westmere poet Mara Fenwick born?")) == "3 March 1901"
    assert _first(extractive_answer(api, "When did the poet of Westmere die?")) == "9 October 1977"
    assert _first(extractive_answer(api, "In what year was Mara Fenwick of Westmere born?")) == "1901"


def test_a_year_stated_alone_is_named_by_the_one_fuller_date_of_that_year():
    alone, full = _sentence("Her book appeared before her death in 1977."), _sentence("She died on 9 October 1977.")
    year = Candidate("1977", None, alone, 1.0, "date", alone.text.index("1977"))
    assert _as_asked(year, Asks("date", word="date"), [alone, full]).text == "9 October 1977"
    other = _sentence("Her second book appeared in May 1977.")
    assert _as_asked(year, Asks("date", word="date"), [alone, full, other]).text == "1977"  # two fuller dates: which?
    assert _as_asked(year, Asks("date", word="date", noun="year"), [alone, full]).text == "1977"
    fuller = Candidate("9 October 1977", None, full, 1.0, "date", full.text.index("9"))
    assert _as_asked(fuller, Asks("date", word="date", noun="year"), [full]).text == "1977"


def test_the_questions_own_names_are_not_its_answer(api):
    assert _first(extractive_answer(api, "Who designed the Harbor Bridge?")) == "Helen Quist"
    assert _first(extractive_answer(api, "Who designed the Harbor Bridge with Helen Quist?")) == "Tomas Brell"


def test_a_choice_is_answered_from_two_dated_passages_citing_both(api):
    report = extractive_answer(api, "Which band was formed first, The Quiet Owls or Glass Lanterns?")
    assert _first(report) == "The Quiet Owls"
    assert "formed in 1998" in report["text"] and "formed in 2004" in report["text"]
    assert report["text"].count("<<entity:") == 2
    later = extractive_answer(api, "Which band was formed later, The Quiet Owls or Glass Lanterns?")
    assert _first(later) == "Glass Lanterns"


def test_a_same_question_is_answered_from_the_value_each_passage_gives(api):
    same = extractive_answer(api, "Are Port Elling and Ashby Mill in the same county?")
    assert _first(same) == "yes" and same["text"].count("county of Westmere") == 2
    other = extractive_answer(api, "Are Port Elling and Carrow in the same county?")
    assert _first(other) == "no" and "county of Dunmore" in other["text"]
    unknown = extractive_answer(api, "Are Port Elling and The Quiet Owls in the same county?")
    assert unknown["answers"] == []  # the band's passage names no county


def test_a_both_question_is_answered_when_both_passages_say_what_they_are(api):
    both = extractive_answer(api, "Are The Quiet Owls and Glass Lanterns both bands?")
    assert _first(both) == "yes" and "folk band" in both["text"] and "rock band" in both["text"]
    folk = extractive_answer(api, "Are The Quiet Owls and Glass Lanterns both folk bands?")
    assert _first(folk) == "no" and "rock band" in folk["text"]  # the other says what it is instead
    unknown = extractive_answer(api, "Are The Quiet Owls and Glass Lanterns both signed to Elling Records?")
    assert unknown["answers"] == []  # neither passage says it: nothing to judge by


def test_a_choice_without_comparable_statements_is_declined(api):
    report = extractive_answer(api, "Which band has more members, The Quiet Owls or Glass Lanterns?")
    assert report["answers"] == [] and "do not give comparable statements" in report["text"]


def test_a_question_no_passage_supports_is_declined_not_guessed(api):
    report = extractive_answer(api, "How many members does Glass Lanterns have?")
    assert report["answers"] == []
    assert report["text"].startswith("None of the retrieved facts or passages names a number")


def test_a_peoples_adjective_asked_as_a_place_is_answered_by_its_place(tmp_path):
    """"An Australian painter" answers "which country" by the country itself, not by the adjective."""
    corpus = {"voss.md": "# Kellan Voss\n\nKellan Voss was an Australian painter of landscapes. His paintings hang in "
                         "several galleries.\n"}
    with corpus_api(tmp_path, corpus) as client:
        report = extractive_answer(client, "Which country was the painter Kellan Voss from?")
        assert _first(report) == "Australia", report
