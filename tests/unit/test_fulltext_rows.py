"""The full-text index's rows of a document graph, read in one pass: chunks, labels, mentions and links."""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from attest.store.fulltext import Chunk, Label, MentionRow, document_rows
from attest.vocab import ATT, ONT, RDF, RDFS, Iris

IRIS = Iris("https://w3id.org/attest/")


def test_one_pass_reads_every_kind_of_row_and_leaves_out_what_is_not_minted():
    g = NamedNode(IRIS.document_graph("d"))
    doc = NamedNode(IRIS.document("d"))
    chunk, mention = NamedNode(IRIS.chunk("c1")), NamedNode(IRIS.chunk("c1") + "/mention/hall")
    stray = NamedNode(IRIS.chunk("c1") + "/mention/x")
    hall, som = NamedNode(IRIS.entity("hall")), NamedNode(IRIS.entity("som"))
    outside = NamedNode("https://elsewhere.org/x")

    def q(s, p, o):
        return Quad(s, NamedNode(p), o, g)

    quads = [q(chunk, ATT + "text", Literal("Hall is a member of SOM.")), q(chunk, ATT + "inDocument", doc),
             q(chunk, ATT + "charStart", Literal(0)), q(chunk, ATT + "charEnd", Literal(24)),
             q(mention, ATT + "inChunk", chunk), q(mention, ATT + "denotes", hall),
             q(mention, ATT + "charStart", Literal(0)), q(mention, ATT + "charEnd", Literal(4)),
             q(stray, ATT + "inChunk", chunk), q(stray, ATT + "denotes", outside),  # not minted: no mention row
             q(hall, RDFS + "label", Literal("Hall")), q(hall, RDF + "type", NamedNode(ONT + "Person")),
             q(hall, RDF + "type", NamedNode("https://elsewhere.org/Thing")),  # not an ontology class: no type row
             q(outside, RDFS + "label", Literal("X")),  # not minted: no label row
             q(hall, ONT + "memberOf", som), q(hall, ONT + "memberOf", outside),  # the second is not a link
             q(som, ONT + "sameAs", som),  # to itself: not a link
             Quad(BlankNode("b"), NamedNode(ONT + "memberOf"), som, g)]
    rows = document_rows(iter(quads), IRIS)  # any iterable, read once
    assert rows.chunks == {"d": [Chunk(chunk.value, "Hall is a member of SOM.", 0, 24)]}
    assert rows.labels == [Label(hall.value, "", "Person"), Label(hall.value, "Hall", "")]
    assert rows.mentions == [MentionRow(chunk.value, hall.value, 0, 4)]
    assert rows.links == [(hall.value, som.value)]
