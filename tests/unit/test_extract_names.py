"""Name boundaries and types of the rule extractor on encyclopedic prose (attest.extract.rules_names), invented sentences."""

from __future__ import annotations

import pytest

from attest.extract.rules import RuleExtractor


@pytest.fixture(scope="module")
def extractor(terms):
    return RuleExtractor(terms)


def names(extractor, text: str) -> set[str]:
    return {e.name for e in extractor.extract(text).entities}


def types(extractor, text: str) -> dict[str, str]:
    return {e.name: e.type for e in extractor.extract(text).entities}


# ---------------------------------------------------------------- boundaries
@pytest.mark.parametrize("text, name", [
    ("Her thesis appeared in the Journal of Coastal Sediment Studies in 1994.", "Journal of Coastal Sediment Studies"),
    ("He taught at the University of Marrowfield for a decade.", "University of Marrowfield"),
    ("The portrait shows Otto Ferdinand II of Velmark on horseback.", "Otto Ferdinand II of Velmark"),
    ("She was awarded the Order of the Silver Heron in 1950.", "Order of the Silver Heron"),
    ("The Council on Tidal Research met twice a year.", "Council on Tidal Research"),
])
def test_connectors_inside_a_name_keep_it_whole(extractor, text, name):
    assert name in names(extractor, text)


def test_a_heading_written_again_in_the_text_is_one_name_with_its_small_words(extractor):
    text = "The Lantern by the Weir\n\nThe Lantern by the Weir is a 1957 novel by Orla Fenwick. It sold well."
    found = names(extractor, text)
    assert "The Lantern by the Weir" in found
    assert not found & {"Lantern", "Weir", "The Lantern"}


def test_a_heading_of_common_words_is_no_name(extractor):
    found = names(extractor, "Getting started\n\nGetting started takes a minute with Quillstone.")
    assert "Getting started" not in found


def test_title_case_in_double_quotes_is_one_title(extractor):
    found = names(extractor, 'In 1971 the band recorded "Walk Me to the Lighthouse" with Ruth Caddel.')
    assert "Walk Me to the Lighthouse" in found
    assert "Lighthouse" not in found


def test_a_quoted_phrase_in_lower_case_is_no_title(extractor):
    found = names(extractor, 'Critics called the record "more acoustic, less polished" than Ruth Caddel\'s first.')
    assert not any("acoustic" in n for n in found)


def test_a_nickname_in_quotes_stays_inside_the_name(extractor):
    assert 'Theodore "Teddy" Vantreight' in names(extractor, 'The goal was scored by Theodore "Teddy" Vantreight.')


def test_a_capitalized_article_inside_a_sentence_opens_the_name(extractor):
    found = names(extractor, "She wrote a column for The Marlowe Courier until 1990.")
    assert "The Marlowe Courier" in found and "Marlowe Courier" not in found


def test_a_common_nouns_possessive_is_inside_the_name(extractor):
    assert "Workers' Progress Party" in names(extractor, "In 1931 she joined the Workers' Progress Party in Velmark.")
    assert "People's Assembly" in names(extractor, "The bill passed the People's Assembly in March.")


def test_particles_of_other_languages_join_a_name(extractor):
    assert "Altdorf am Weiher" in names(extractor, "He was born in Altdorf am Weiher, a small village.")
    assert "Bruck an der Sollach" in names(extractor, "The line ends at Bruck an der Sollach.")


def test_an_en_dash_joins_two_names_into_one(extractor):
    assert "Norland–Vessia Friendship Bridge" in names(extractor, "They opened the Norland–Vessia Friendship Bridge.")


def test_two_peoples_joined_by_a_hyphen_are_two_names(extractor):
    found = names(extractor, "Ruth Caddel is a Norwegian-American painter.")
    assert {"Norwegian", "American"} <= found and "Norwegian-American" not in found


def test_an_events_year_and_an_ordinal_open_the_name(extractor):
    assert "1996 Summer Olympics" in names(extractor, "He ran at the 1996 Summer Olympics in the relay.")
    assert "4th Infantry Division" in names(extractor, "He served with the 4th Infantry Division.")


def test_a_year_is_not_joined_to_a_persons_name(extractor):
    found = names(extractor, "After the war, in 1996 Lisa Brandvold moved to Velmark.")
    assert "Lisa Brandvold" in found and not any(n.startswith("1996") for n in found)


def test_a_year_or_a_score_after_a_name_is_no_version(extractor):
    assert "Grand Coastal Rally" in names(extractor, "She won the Grand Coastal Rally 1988 in a borrowed car.")
    found = names(extractor, "The Harbour Kings beat the Ridge Hawks 14, Mill Town 5.")
    assert "Harbour Kings" in found and "Ridge Hawks" in found


def test_versions_still_join(extractor):
    assert {"SPARQL 1.1", "OWL 2 RL"} <= names(extractor, "Quillstone supports SPARQL 1.1 and reasons over OWL 2 RL.")


# ---------------------------------------------------------------- what is not a name
def test_an_office_is_not_part_of_the_name_and_types_the_person(extractor):
    found = types(extractor, "Vice Admiral Harold Penbury commanded the fleet.")
    assert "Harold Penbury" in found and found["Harold Penbury"] == "Person"
    assert not any("Admiral" in n for n in found)


def test_an_office_of_a_place_names_only_the_place(extractor):
    found = names(extractor, "In 1820 he became Bishop of Tarnwick, and later Prime Minister of Velmark.")
    assert {"Tarnwick", "Velmark"} <= found
    assert not any("Bishop" in n or "Minister" in n for n in found)


def test_an_office_or_a_common_abbreviation_alone_is_no_name(extractor):
    found = names(extractor, "The President met the Governor, and the album came out on CD and LP.")
    assert not found & {"President", "Governor", "CD", "LP"}


def test_a_sentences_opening_word_is_not_part_of_the_name(extractor):
    found = names(extractor, "Following Marten Hoyle, the club hired a new coach. Originally Cedar Point was a farm.")
    assert "Marten Hoyle" in found and "Cedar Point" in found
    assert not any(n.startswith(("Following", "Originally")) for n in found)


def test_a_missed_sentence_end_after_an_abbreviation_ends_the_name(extractor):
    found = names(extractor, "He moved to the U.S. It was the year Ruth Caddel arrived.")
    assert "U.S." in found and "U.S. It" not in found


def test_a_capitalized_common_noun_alone_is_no_name_but_a_listed_or_cued_one_is(extractor):
    assert "Church" not in names(extractor, "In 1900 he left the Church and moved to Tarnwick.")
    assert "Turtle" in names(extractor, "RDFLib parses Turtle and JSON-LD.")


def test_ordinals_and_superlatives_are_no_lower_case_names(extractor):
    found = names(extractor, "It was her sixth studio album and the largest city on the coast.")
    assert not found & {"sixth", "largest"}


# ---------------------------------------------------------------- types from context
@pytest.mark.parametrize("text, name, type_name", [
    ("The ferry crosses the Hollin River at dawn.", "Hollin River", "Location"),
    ("She represented the Harbour Labour Party in the assembly.", "Harbour Labour Party", "PoliticalParty"),
    ("The Battle of Emberfield ended the siege.", "Battle of Emberfield", "Event"),
    ("The manuscript was kept by Ada Quillfeather (1815–1852) in her study.", "Ada Quillfeather", "Person"),
    ("Jonas Pell was born in Tarnwick and later moved abroad.", "Tarnwick", "Location"),
    ("The festival is held in Orvast, Norway every year.", "Orvast", "Location"),
    ("Mirelle Oduya, an American singer, recorded the song.", "Mirelle Oduya", "Person"),
    ("Brackwater is a village in the north of the county.", "Brackwater", "City"),
    ('Their last single, "Walk Me to the Lighthouse", was a hit.', "Walk Me to the Lighthouse", "CreativeWork"),
    ("She grew up in Uzbekistan before the war.", "Uzbekistan", "Country"),
    ("Hollis, the son of a Royal Vendish Air Force pilot, was born in Tarnwick.", "Royal Vendish Air Force",
     "Organization"),
])
def test_context_gives_the_type(extractor, text, name, type_name):
    assert types(extractor, text).get(name) == type_name


@pytest.mark.parametrize("text, name, type_name", [
    ("He is best known for war films such as The Silent Orchard (1950) and his marriage.", "The Silent Orchard",
     "CreativeWork"),
    ("His most recent directorial was Varakkal Swapnangal (2016).", "Varakkal Swapnangal", "CreativeWork"),
    ('The duo had hits with "Never Ask Me Twice" (1981).', "Never Ask Me Twice", "CreativeWork"),
    ("It was later followed by Rumah Kaca (1930), Pohon Asam (1930) and Sungai (1931).", "Pohon Asam", "CreativeWork"),
    ("It was inspired by the 1972 arcade game Flipwell.", "Flipwell", "VideoGame"),
])
def test_one_year_in_brackets_or_a_work_class_before_the_name_makes_it_a_work(extractor, text, name, type_name):
    assert types(extractor, text).get(name) == type_name


@pytest.mark.parametrize("text, name", [
    ("The manuscript was kept by John Smithers (1950–2010) in his study.", "John Smithers"),
    ("Marta Kowalczyk (born 1950) is a chemist.", "Marta Kowalczyk"),
    ("The chair was later held by Ana Ruiz (1986).", "Ana Ruiz"),
])
def test_a_persons_brackets_keep_the_person(extractor, text, name):
    assert types(extractor, text).get(name) == "Person"


def test_a_pronoun_opening_the_next_sentence_makes_the_name_a_person_and_so_its_surname(extractor):
    text = "Tobias Wrenfield is known for his bridges. He designed twelve of them. Wrenfield retired in 1990."
    found = types(extractor, text)
    assert found["Tobias Wrenfield"] == "Person"
    assert found["Wrenfield"] == "Person"


def test_technical_names_keep_their_types(extractor):
    found = types(extractor, "Oxigraph is a graph database written in Rust. The Apache Software Foundation hosts Jena.")
    assert found.get("Apache Software Foundation") in {"Foundation", "Organization"}
    assert found.get("Oxigraph") not in {"Person", "Location", "City"}


def test_a_heading_inside_a_longer_name_is_not_cut_out_of_it(extractor):
    text = "Quillstone\n\nQuillstone is a graph store. The Quillstone Association coordinates its releases."
    found = names(extractor, text)
    assert "Quillstone Association" in found and "Association" not in found


def test_a_letter_alone_is_no_name(extractor):
    found = names(extractor, "Every item has an identifier that starts with Q, such as Q42 for Ruth Caddel.")
    assert "Q" not in found and "Q42" in found


@pytest.mark.parametrize("text, name", [
    ("She joined the Office of Harbours and Shipping in 1960.", "Office of Harbours and Shipping"),
    ("He sang with the Velmark Song and Dance Ensemble for years.", "Velmark Song and Dance Ensemble"),
    ("The Coast and Marsh Service protects the dunes.", "Coast and Marsh Service"),
])
def test_and_inside_a_name_joins_it(extractor, text, name):
    assert name in names(extractor, text)


def test_and_between_two_names_keeps_them_apart(extractor):
    found = names(extractor, "Ruth Caddel and Marten Hoyle founded Tarnwick Records.")
    assert {"Ruth Caddel", "Marten Hoyle", "Tarnwick Records"} <= found


def test_and_between_two_organizations_with_connectors_keeps_them_apart(extractor):
    found = names(extractor, "She taught at the Marrow Institute of Technology and Velmark University of Applied Arts.")
    assert {"Marrow Institute of Technology", "Velmark University of Applied Arts"} <= found


@pytest.mark.parametrize("text, kept", [
    ("In 1898 Ana Ruiz joined the skiing club Varde IL.", {"Ana Ruiz", "Varde IL"}),   # no "skiing" club name
    ("Its resultant album sold well, and the wider region grew.", set()),                 # prose kinds are capitalized
    ("The service stores its state in redis, a key-value store.", {"redis"}),              # technical: still a name
])
def test_a_lower_case_word_is_no_name_of_a_prose_kind(extractor, text, kept):
    assert names(extractor, text) == kept
