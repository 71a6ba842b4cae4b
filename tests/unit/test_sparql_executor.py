"""The in-process threaded executor: streamed chunks, negotiation after evaluation, deadlines, dataset rules."""

from __future__ import annotations

import asyncio
import time

import pytest
from pyoxigraph import Literal, NamedNode, Quad, QueryResultsFormat, parse_query_results

from attest.errors import NotAcceptable, QueryTimeout, SparqlSyntaxError
from attest.sparql.executor import ThreadedExecutor
from attest.sparql.protocol import Dataset
from attest.sparql.streaming import CHUNK_BYTES
from attest.store import EmbeddedStore
from attest.vocab import Iris

G = NamedNode("http://example.org/g")


@pytest.fixture
def executor():
    store = EmbeddedStore(None, Iris("http://example.org/"))
    store.add(Quad(NamedNode(f"http://example.org/s{i}"), NamedNode("http://example.org/p"), Literal(f"value {i}"), G)
              for i in range(30000))
    ex = ThreadedExecutor(store, union_default_graph=True, threads=4)
    yield ex
    ex.close()


async def collect(streamed) -> tuple[list[bytes], bytes]:
    chunks = [streamed.head]
    if streamed.rest is not None:
        chunks += [c async for c in streamed.rest]
    return chunks, b"".join(chunks)


def test_a_big_result_streams_in_bounded_chunks(executor):
    async def run():
        streamed = await executor.execute("SELECT ?s ?o WHERE { ?s ?p ?o }", Dataset(), "text/tab-separated-values", 30)
        return streamed.media_type, await collect(streamed)

    media, (chunks, body) = asyncio.run(run())
    assert media.startswith("text/tab-separated-values")
    assert len(chunks) > 5 and max(len(c) for c in chunks) < CHUNK_BYTES + 16 * 1024
    assert len(list(parse_query_results(body, QueryResultsFormat.TSV))) == 30000


def test_a_small_result_comes_whole(executor):
    streamed = asyncio.run(executor.execute("ASK { ?s ?p 'value 7' }", Dataset(), None, 30))
    assert streamed.rest is None and streamed.head == b'{"head":{},"boolean":true}'


def test_deadline_answers_503(executor):
    # a few seconds of work: the thread cannot be interrupted, so it must end on its own after the 503
    runaway = ("SELECT (COUNT(*) AS ?n) WHERE { { SELECT ?a WHERE { ?a ?b ?c } LIMIT 3000 } "
               "{ SELECT ?d WHERE { ?d ?e ?f } LIMIT 3000 } }")
    started = time.monotonic()
    with pytest.raises(QueryTimeout) as err:
        asyncio.run(executor.execute(runaway, Dataset(), None, 0.1))  # 9M rows to count: never done in 0.1 s
    assert time.monotonic() - started < 2 and err.value.status_code == 503


def test_negotiation_happens_once_the_kind_is_known(executor):
    with pytest.raises(NotAcceptable):
        asyncio.run(executor.execute("SELECT * WHERE { ?s ?p ?o } LIMIT 1", Dataset(), "text/turtle", 30))
    streamed = asyncio.run(executor.execute("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 1", Dataset(),
                                            "text/turtle", 30))
    assert streamed.media_type.startswith("text/turtle")


def test_errors_before_the_first_chunk_propagate(executor):
    with pytest.raises(SparqlSyntaxError):
        asyncio.run(executor.execute("SELECT", Dataset(), None, 30))


def test_dataset_rules(executor):
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

    def n(query, dataset=Dataset()):
        streamed = asyncio.run(executor.execute(query, dataset, "text/csv", 30))
        return int(streamed.head.split(b"\r\n")[1])

    assert n(count) == 30000  # union default graph
    assert n(count, Dataset(named_graphs=(G.value,))) == 0  # a named-only dataset has an empty default graph
    assert n(count, Dataset(default_graphs=(G.value,))) == 30000
    assert n(count.replace("WHERE", "FROM <http://example.org/other> WHERE")) == 0


def test_update_then_query(executor):
    async def run():
        await executor.update("INSERT DATA { <http://example.org/new> <http://example.org/p> 1 }", Dataset())
        return await executor.execute("ASK { <http://example.org/new> ?p ?o }", Dataset(), None, 30)

    assert asyncio.run(run()).head.endswith(b"true}")
    assert executor.store.generation >= 1  # the deadline executor's snapshots see the write
