"""The keys a name could reach at a fuzz.ratio cutoff: scoring only them finds what scoring every key finds, in order."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st
from rapidfuzz import fuzz, process

from attest.ingest.near_keys import NearKeys, char_counts

# letters, digits, accented and other scripts, and the symbols keys keep: every bucket kind
ALPHABET = "abcdeinorstuy0123456789éüøłßçあ中$&+()"


def _matches(key: str, choices: list[str], cutoff: float) -> list[tuple[str, float]]:
    return [(k, s) for k, s, _ in process.extract(key, choices, scorer=fuzz.ratio, score_cutoff=cutoff, limit=8)]


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.text(ALPHABET, min_size=0, max_size=14), min_size=1, max_size=60),
       query=st.text(ALPHABET, min_size=1, max_size=14), cutoff=st.sampled_from([50.0, 75.0, 90.0]))
def test_scoring_the_candidates_alone_gives_the_matches_of_all_keys(keys, query, cutoff):
    near = NearKeys()
    for key in dict.fromkeys(keys):
        near.add(key)
    candidates = near.candidates(query, cutoff)
    assert set(candidates) <= set(near.keys)
    assert candidates == [k for k in near.keys if k in set(candidates)]  # the order they were added in
    assert _matches(query, candidates, cutoff) == _matches(query, near.keys, cutoff)


def test_similar_spellings_are_candidates_and_unrelated_ones_are_not():
    near = NearKeys()
    for key in ("postgresql", "postgres", "mysql", "apachejena", "johnsmith", "jonsmith"):
        near.add(key)
    assert near.candidates("postgresq", 75.0) == ["postgresql", "postgres"]
    assert near.candidates("johnsmyth", 75.0) == ["johnsmith", "jonsmith"]
    assert near.candidates("zzzz", 75.0) == []


def test_growth_past_the_first_block_keeps_every_key():
    rng = random.Random(3)
    near = NearKeys()
    keys = ["".join(rng.choice("abcdefgh") for _ in range(rng.randint(3, 9))) for _ in range(2500)]
    keys = list(dict.fromkeys(keys))
    for key in keys:
        near.add(key)
    assert len(near) == len(keys)
    for query in keys[::97]:
        assert _matches(query, near.candidates(query, 75.0), 75.0) == _matches(query, keys, 75.0)


def test_a_key_with_more_than_a_byte_of_one_letter_is_still_found():
    near = NearKeys()
    long_key = "a" * 300 + "b"
    near.add("xyz")
    near.add(long_key)
    assert long_key in near.candidates("a" * 299 + "b", 75.0)
    assert long_key in near.candidates("a" * 301, 75.0)  # the query over a byte too: every key is scored
    assert char_counts("ab1é").sum() == 4
