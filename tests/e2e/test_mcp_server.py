"""The MCP server in process (the SDK's own client): every tool on the demo corpus, the schema snapshot, resources,
the prompt, named-query tools that follow the files, and bad input."""

from __future__ import annotations

import json
import os
import shutil
import time

import anyio
import pytest
from mcp import Client
from pyoxigraph import RdfFormat, Store

from tests.conftest import REPO
from tests.mcp_support import OpenState, demo_settings, error_text, exercise_every_tool, result

SNAPSHOT = REPO / "tests" / "snapshots" / "mcp_tools.json"


@pytest.fixture
def state(demo_dir):
    with OpenState(demo_settings(demo_dir)) as state:
        yield state


def connect(state) -> Client:
    from attest.mcp.server import build_server

    return Client(build_server(lambda: state))


def run(work):
    return anyio.run(work)


def test_every_tool_on_the_demo_corpus_in_process(state):
    async def work():
        async with connect(state) as client:
            await exercise_every_tool(client)

    run(work)


def test_the_readmes_worked_example_holds(state):
    """docs/how-to/mcp.md, the worked example: kag_query, the model's text with the markers it gave, verify_citations, explain_fact."""
    async def work():
        async with connect(state) as client:
            context = result(await client.call_tool("kag_query", {"query": "Which database does Oxigraph use?",
                                                                  "max_hops": 1, "limit": 5}))
            first = context["relations"][0]
            assert (first["id"], first["text"], first["status"]) == ("oxigraph~2f50b4639c", "Oxigraph uses RocksDB", "asserted")
            assert "- RocksDB: Oxigraph uses RocksDB <<relation:oxigraph~2f50b4639c>>" in context["context"]
            text = ("Oxigraph stores its data in RocksDB <<relation:oxigraph~2f50b4639c>>. "
                    "Oxigraph relates to RocksDB <<relation:oxigraph|relatesTo|rocksdb>>.")
            report = result(await client.call_tool("verify_citations", {"text": text}))
            assert round(report["confidence"], 2) == 0.96 and not report["flags"]
            assert [(c["citations"][0]["status"], c["confidence"]) for c in report["claims"]] == [("asserted", 1.0),
                                                                                                   ("inferred", 0.9)]
            proof = result(await client.call_tool("explain_fact", {"subject": "oxigraph", "predicate": "ont:relatesTo",
                                                                   "object": "rocksdb"}))
            assert (proof["status"], proof["rule"], proof["depth"]) == ("inferred", "prp-spo1", 1)

    run(work)


def test_tool_schemas_match_the_snapshot(state):
    """A change to a tool's name, description or input schema must be deliberate: regenerate the snapshot with
    ATTEST_UPDATE_SNAPSHOTS=1 and commit it."""
    async def work():
        async with connect(state) as client:
            return (await client.list_tools()).tools

    tools = run(work)
    listed = {t.name: {"description": t.description, "inputSchema": t.input_schema} for t in tools}
    if os.environ.get("ATTEST_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(listed, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert listed == json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert all(t.annotations.read_only_hint for t in tools)
    for name, tool in listed.items():  # every argument is described for the model that fills it in
        for field, schema in tool["inputSchema"]["properties"].items():
            assert schema.get("description"), (name, field)


def test_resources_and_the_grounded_answer_prompt(state):
    async def work():
        async with connect(state) as client:
            uris = {r.uri for r in (await client.list_resources()).resources}
            assert {"attest://ontology", "attest://graph-layout", "attest://shapes/entities.ttl",
                    "attest://queries/neighbours.rq"} <= uris
            ontology = (await client.read_resource("attest://ontology")).contents[0]
            assert ontology.mime_type == "text/turtle" and "Database" in ontology.text
            Store().load(ontology.text.encode(), RdfFormat.TURTLE)  # it is Turtle
            layout = json.loads((await client.read_resource("attest://graph-layout")).contents[0].text)
            graphs = {g["iri"]: g["quads"] for g in layout["graphs"]}
            assert graphs[state.iris.inferred_graph] > 0 and graphs[state.iris.ontology_graph] > 0
            documents = next(f for f in layout["graph_families"] if f["prefix"] == state.iris.document_graph_prefix)
            assert documents["graphs"] == 12
            query = (await client.read_resource("attest://queries/neighbours.rq")).contents[0].text
            assert query == (REPO / "queries" / "neighbours.rq").read_text(encoding="utf-8")
            shapes = (await client.read_resource("attest://shapes/entities.ttl")).contents[0].text
            assert "sh:NodeShape" in shapes

            prompts = (await client.list_prompts()).prompts
            assert [p.name for p in prompts] == ["grounded_answer"]
            prompt = await client.get_prompt("grounded_answer", {"question": "Which database does Oxigraph use?"})
            text = prompt.messages[0].content.text
            assert "citation marker" in text and "<<entity:rocksdb>>" in text
            assert "Which database does Oxigraph use?" in text

    run(work)


def test_an_unknown_resource_or_tool_is_a_clean_error(state):
    from mcp.shared.exceptions import MCPError

    async def work():
        async with connect(state) as client:
            with pytest.raises(MCPError, match="no resource"):
                await client.read_resource("attest://nothing")
            assert "no tool named" in error_text(await client.call_tool("drop_everything", {}))

    run(work)


def test_named_query_tools_follow_the_files(demo_dir, tmp_path):
    queries = tmp_path / "queries"
    shutil.copytree(REPO / "queries", queries)
    with OpenState(demo_settings(demo_dir, queries_dir=queries)) as state:
        async def names(client):
            return {t.name: t for t in (await client.list_tools()).tools}

        async def work():
            async with connect(state) as client:
                before = await names(client)
                assert "query_labels_of" not in before
                (queries / "labels-of.rq").write_text(
                    "# Every label of an entity.\n# @param entity: entity  The entity id\n"
                    "# @param lang: string?  Language tag\n\n"
                    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
                    "SELECT ?label ?entity ?lang WHERE { ?entity rdfs:label ?label }\n", encoding="utf-8")
                after = await names(client)
                schema = after["query_labels_of"].input_schema
                assert schema["required"] == ["entity"] and set(schema["properties"]) == {"entity", "lang", "limit", "offset"}
                assert schema["properties"]["entity"]["type"] == "string"
                labels = result(await client.call_tool("query_labels_of", {"entity": "oxigraph"}))
                assert "Oxigraph" in labels["result"]
                (queries / "labels-of.rq").unlink()
                assert "query_labels_of" not in await names(client)
                assert "no tool named" in error_text(await client.call_tool("query_labels_of", {"entity": "oxigraph"}))

        run(work)


def test_named_query_tool_arguments_are_checked(state):
    async def work():
        async with connect(state) as client:
            missing = error_text(await client.call_tool("query_neighbours", {}))
            assert "missing parameter 'entity'" in missing
            unknown = error_text(await client.call_tool("query_neighbours", {"entity": "oxigraph", "depth": 3}))
            assert "has no parameter depth" in unknown
            ill_typed = error_text(await client.call_tool("query_inferred_facts", {"entity": "oxigraph", "maxDepth": "deep"}))
            assert "maxDepth" in ill_typed and "an integer" in ill_typed
            page = result(await client.call_tool("query_class_counts", {"limit": 2}))
            assert page["next_offset"] == 2 and len(json.loads(page["result"])["results"]["bindings"]) == 2

    run(work)


def test_answer_in_llm_mode_is_verified_before_it_returns(demo_dir, fake_llm):
    """The configured model (the fake OpenAI server) writes the answer; its invented citation is scored 0 and removed."""
    settings = demo_settings(demo_dir, llm_base_url=fake_llm.url, llm_model="test-model", llm_timeout_s=2.0,
                             llm_max_retries=0)
    fake_llm.reply("Oxigraph keeps its data in RocksDB <<relation:oxigraph|uses|rocksdb>>. "
                   "It was written by NASA <<entity:nasa>>.")
    with OpenState(settings) as state:
        async def work():
            async with connect(state) as client:
                return result(await client.call_tool("answer", {"question": "Which database does Oxigraph use?",
                                                                "mode": "llm"}))

        report = run(work)
    assert report["mode"] == "llm" and "NASA" not in report["text"] and "RocksDB" in report["text"]
    assert report["claims"][0]["flags"] == [] and "removed" in report["claims"][1]["flags"]
    assert "<<entity:rocksdb>>" in fake_llm.chat_requests[-1].messages_text()  # the graph context reached the model


# bad input --------------------------------------------------------------------------------------------------------

def test_bad_sparql_is_a_tool_error_with_the_parsers_message(state):
    bad = "SELECT ?s WHERE { ?s ?p }"
    with pytest.raises(SyntaxError) as parser:
        Store().query(bad)

    async def work():
        async with connect(state) as client:
            text = error_text(await client.call_tool("sparql_query", {"query": bad}))
            assert text.startswith("SparqlSyntaxError: invalid SPARQL query") and str(parser.value) in text

    run(work)


@pytest.mark.parametrize("update", [
    "INSERT DATA { <urn:x:a> <urn:x:b> <urn:x:c> }",
    "PREFIX ont: <https://w3id.org/attest/ontology#>\n# a comment\nDELETE WHERE { ?s ont:uses ?o }",
    "DROP ALL",
    "WITH <urn:x:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
])
def test_an_update_is_refused_and_the_store_is_unchanged(state, update):
    before = state.store.graph_sizes()

    async def work():
        async with connect(state) as client:
            text = error_text(await client.call_tool("sparql_query", {"query": update}))
            assert "read-only" in text and "refused" in text

    run(work)
    assert state.store.graph_sizes() == before


def test_oversized_input_and_too_many_hints_name_the_limits(state):
    async def work():
        async with connect(state) as client:
            text = error_text(await client.call_tool("kag_query", {"query": "x" * (10 * 1024 + 1)}))
            assert "query" in text and "10240 bytes" in text
            text = error_text(await client.call_tool("kag_query", {"query": "Oxigraph",
                                                                   "entities": [f"e{i}" for i in range(51)]}))
            assert "entities" in text and "at most 50 items" in text
            text = error_text(await client.call_tool("kag_query", {"query": "Oxigraph", "max_hops": 4}))
            assert "max_hops" in text and "less than or equal to 3" in text
            limit = state.settings.max_query_chars
            text = error_text(await client.call_tool("sparql_query", {"query": "ASK {}" + " " * limit}))
            assert "PayloadTooLarge" in text and f"limit of {limit}" in text
            text = error_text(await client.call_tool("answer", {"question": "x" * (10 * 1024 + 1)}))
            assert "10240 bytes" in text

    run(work)


def test_a_runaway_query_is_cut_at_the_deadline(state):
    runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"

    async def work():
        async with connect(state) as client:
            started = time.monotonic()
            text = error_text(await client.call_tool("sparql_query", {"query": runaway, "timeout": 1}))
            return text, time.monotonic() - started

    text, took = run(work)
    assert text.startswith("QueryTimeout") and "deadline of 1 s" in text
    assert took < 10


def test_a_tool_call_on_a_closed_session_is_a_clean_error(state):
    async def work():
        client = connect(state)
        async with client:
            await client.list_tools()
        with pytest.raises(RuntimeError, match="async context manager"):
            await client.call_tool("kag_query", {"query": "Oxigraph"})

    run(work)
