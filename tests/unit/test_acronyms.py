"""An acronym and the name it abbreviates (attest.extract.acronyms)."""

from __future__ import annotations

import pytest

from attest.extract.acronyms import is_acronym


@pytest.mark.parametrize("short, long", [
    ("W3C", "The World Wide Web Consortium"),
    ("MIT", "Massachusetts Institute of Technology"),
    ("U.S.", "United States"),
    ("NASA", "National Aeronautics and Space Administration"),
])
def test_acronyms_of_their_expansions(short, long):
    assert is_acronym(short, long) and is_acronym(long, short)


@pytest.mark.parametrize("a, b", [
    ("INRIA", "Beihang University"),   # initials differ
    ("CERN", "CERN"),                  # the same name, not an expansion
    ("Oslo", "Olav Lange Sund"),       # not written as an acronym
    ("W3C", "World Web Consortium"),   # the digit counts its letter
])
def test_other_pairs_are_not(a, b):
    assert not is_acronym(a, b)
