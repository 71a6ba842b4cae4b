"""The citation parser and claim splitter: marker spellings, hostile payloads, and properties checked with hypothesis."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from attest.answer.citations import parse_citations, strip_markers
from attest.answer.claims import split_claims


def test_all_spellings_parse():
    text = "A <<entity:oxigraph>> B {{entity:rocksdb}} C <<relation:oxigraph~0123456789>> D <<relation: a | ont:uses | b >>"
    got = [(c.kind, c.ref, c.parts) for c in parse_citations(text)]
    assert got == [("entity", "oxigraph", None), ("entity", "rocksdb", None),
                   ("relation", "oxigraph~0123456789", None), ("relation", "a | ont:uses | b", ("a", "uses", "b"))]


def test_offsets_point_at_the_marker():
    text = "x <<entity:a>> y"
    c = parse_citations(text)[0]
    assert text[c.start:c.end] == c.marker == "<<entity:a>>"


def test_hostile_payload_is_still_a_marker():
    (c,) = parse_citations("Claim <<entity:x> } ; DROP ALL ; #>>.")
    assert c.kind == "entity" and c.ref == "x> } ; DROP ALL ; #"


def test_a_marker_never_swallows_the_next_one():
    assert [c.ref for c in parse_citations("<<entity:a <<entity:b>> <<entity:c>>")] == ["b", "c"]


def test_not_markers():
    assert parse_citations("<<other:x>> << entity >> {{entity}} <entity:x> <<entity:a\nb>>") == []


def test_strip_markers():
    assert strip_markers("Oxigraph uses RocksDB <<entity:oxigraph>> <<relation:a|uses|b>>.") == "Oxigraph uses RocksDB."


def test_claims_keep_trailing_markers_and_skip_abbreviations():
    text = "Oxigraph uses RocksDB. <<entity:rocksdb>> It implements SPARQL 1.1, e.g. queries <<entity:x.y>>.\n- item"
    claims = [text[s.start:s.end] for s in split_claims(text)]
    assert claims == ["Oxigraph uses RocksDB. <<entity:rocksdb>>",
                      "It implements SPARQL 1.1, e.g. queries <<entity:x.y>>.", "- item"]


ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,30}", fullmatch=True)
words = st.text(alphabet=st.characters(blacklist_characters="<>{}\n", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(words, st.sampled_from(["entity", "relation"]), ids, st.booleans()), max_size=8), words)
def test_generated_markers_are_found_in_order_with_their_ids(pieces, tail):
    text, expected = "", []
    for prose, kind, ref, curly in pieces:
        marker = f"{{{{{kind}:{ref}}}}}" if curly else f"<<{kind}:{ref}>>"
        text += prose + marker
        expected.append((kind, ref, marker))
    text += tail
    assert [(c.kind, c.ref, c.marker) for c in parse_citations(text)] == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_parser_and_splitter_never_fail_and_stay_in_bounds(text):
    for c in parse_citations(text):
        assert text[c.start:c.end] == c.marker and c.kind in ("entity", "relation")
    spans = split_claims(text)
    for a, b in zip(spans, spans[1:]):
        assert a.end <= b.start
    for s in spans:
        assert 0 <= s.start < s.end <= len(text) and text[s.start:s.end].strip()
        # a marker lies wholly inside one claim or outside all of them
        for c in parse_citations(text):
            assert not (s.start < c.start < s.end < c.end) and not (c.start < s.start < c.end)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(words, ids), min_size=1, max_size=6))
def test_every_marker_is_inside_a_claim(pieces):
    text = " ".join(f"{prose} <<entity:{ref}>>." for prose, ref in pieces)
    spans = split_claims(text)
    for c in parse_citations(text):
        assert any(s.start <= c.start and c.end <= s.end for s in spans)


def test_a_look_alike_letter_in_the_kind_is_text_not_a_marker():
    """Unicode case folding matches a dotless ı against "i"; such a marker used to fail the kind's validation (a 500)."""
    text = "Oxigraph <‹x <<entıty:oxigraph>> and <<ENTITY:rocksdb>>."
    assert [(c.kind, c.ref) for c in parse_citations(text)] == [("entity", "rocksdb")]
    assert strip_markers(text) == "Oxigraph <‹x <<entıty:oxigraph>> and."
