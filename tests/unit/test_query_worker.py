"""Properties of the query worker's result limits: cuts fall on line boundaries, row bounds never undercount."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import Literal, NamedNode, Quad, QueryResultsFormat, Store

from attest.sparql.worker import BoundedLines, LimitReached, first_rows, rows_at_most, rows_within

# values that look like the byte patterns the row bound counts, plus anything else
HOSTILE = st.sampled_from(['{"', "{}", "},{", "<result>", "<result/>", '"', "\n", "\r\n", "\t", "\\", ">", "}"])
VALUES = st.lists(st.lists(st.one_of(HOSTILE, st.text(max_size=3)), max_size=8).map("".join), max_size=25)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(chunks=st.lists(st.binary(max_size=200).map(lambda b: b.replace(b"\r", b"")), max_size=20),
       max_lines=st.integers(0, 30), max_bytes=st.integers(0, 1500))
def test_bounded_lines_keeps_a_whole_line_prefix(chunks, max_lines, max_bytes):
    out = BoundedLines(max_lines, max_bytes)
    for chunk in chunks:
        try:
            out.write(chunk)
        except LimitReached:
            break
    data, kept = b"".join(chunks), out.value()
    assert data.startswith(kept)
    assert kept.count(b"\n") <= max_lines and len(kept) <= max_bytes
    if out.cut:
        assert kept == b"" or kept.endswith(b"\n")
    else:
        assert kept == data


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(values=VALUES, unbound=st.booleans())
def test_row_bound_never_undercounts(values, unbound):
    store = Store()
    store.extend(Quad(NamedNode(f"http://example.org/s{i}"), NamedNode("http://example.org/p"), Literal(v))
                 for i, v in enumerate(values))
    query = ("SELECT ?z WHERE { ?s ?p ?o OPTIONAL { ?s <http://example.org/none> ?z } }" if unbound
             else "SELECT ?s ?o WHERE { ?s ?p ?o }")
    for fmt in (QueryResultsFormat.JSON, QueryResultsFormat.XML, QueryResultsFormat.CSV, QueryResultsFormat.TSV):
        payload = store.query(query).serialize(format=fmt)
        assert rows_at_most(payload, fmt) >= len(values), (fmt, payload[:300])
        assert rows_within(payload, fmt, len(values)) >= len(values)
    json_payload = store.query(query).serialize(format=QueryResultsFormat.JSON)
    assert rows_within(json_payload, QueryResultsFormat.JSON, 0) == len(values)  # past the limit: counted exactly
    cut = first_rows(json_payload, 2)
    assert json.loads(cut) == {**json.loads(json_payload), "results": {"bindings": json.loads(json_payload)["results"]["bindings"][:2]}}
    assert first_rows(json_payload, len(values)) == json_payload  # nothing cut: the very bytes pyoxigraph wrote
