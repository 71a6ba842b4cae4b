"""The only code that writes terms into retrieval's query text takes pyoxigraph NamedNodes (or a Literal) only."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode

from attest.answer import queries as q
from attest.vocab import ONT


def test_values_blocks_write_named_nodes_only():
    rows = [(NamedNode(ONT + "uses"),), (NamedNode(ONT + "partOf"),)]
    assert q.with_values("VALUES ?p { %(wanted)s }", wanted=rows) == f"VALUES ?p {{ <{ONT}uses> <{ONT}partOf> }}"
    pairs = [(NamedNode(ONT + "a"), NamedNode(ONT + "b"))]
    assert q.with_values("%(pairs)s", pairs=pairs) == f"(<{ONT}a> <{ONT}b>)"
    with pytest.raises(TypeError):
        q.with_values("VALUES ?p { %(wanted)s }", wanted=[(Literal("> } DROP ALL #"),)])  # type: ignore[list-item]


def test_a_literal_placeholder_is_written_escaped():
    assert q.with_values("FILTER(?x = %(text)s)", text=Literal('a" } DROP ALL #')) == 'FILTER(?x = "a\\" } DROP ALL #")'
