"""Shared by the MCP tests: the demo corpus ingested once by the real CLI, and one walk over every tool with the SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

BUILT_IN = {"kag_query", "sparql_query", "verify_citations", "explain_fact", "get_entity", "answer"}
ONT = "https://w3id.org/attest/ontology#"
ENTITY = "https://w3id.org/attest/entity/"
PREFIXES = f"PREFIX ont: <{ONT}>\nPREFIX entity: <{ENTITY}>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"

# arguments for each named query's tool, and a value its result must contain (on the demo corpus)
NAMED_CALLS = {
    "query_class_counts": ({}, ONT + "Database"),
    "query_describe_entity": ({"entity": "oxigraph"}, "Oxigraph"),
    "query_documents_mentioning": ({"entity": "oxigraph"}, "oxigraph.md"),
    "query_entities_of_type": ({"type": "ont:Database"}, ENTITY + "rocksdb"),
    "query_entity_by_label": ({"label": "Oxigraph"}, ENTITY + "oxigraph"),
    "query_explain_fact": ({"subject": "entity:oxigraph", "predicate": "ont:relatesTo", "object": "entity:rocksdb"},
                           "prp-"),
    "query_fact_sources": ({"entity": "oxigraph"}, ENTITY + "rocksdb"),
    "query_inferred_facts": ({"entity": "oxigraph", "maxDepth": 3}, ONT + "relatesTo"),
    "query_neighbours": ({"entity": "oxigraph"}, ENTITY + "rocksdb"),
}


def ingest_demo(data_dir: Path) -> None:
    """`attest ingest demo/corpus --offline` into data_dir, as a user would (rule extractor, reasoner after)."""
    subprocess.run([sys.executable, "-m", "attest.cli", "--data-dir", str(data_dir), "ingest", str(REPO / "demo" / "corpus"),
                    "--offline"], cwd=REPO, check=True, capture_output=True, timeout=300)


def demo_settings(data_dir: Path, **overrides):
    from attest.settings import load_settings

    paths = {"ontology_dir": REPO / "ontology", "shapes_dir": REPO / "shapes", "queries_dir": REPO / "queries"}
    return load_settings(None, data_dir=data_dir, **{**paths, **overrides})


class OpenState:
    """What `attest mcp` opens (attest.main.open_resources) as a context manager, for in-process servers."""

    def __init__(self, settings) -> None:
        self.settings = settings

    def __enter__(self):
        from attest.main import open_resources

        self.state = open_resources(self.settings)
        return self.state

    def __exit__(self, *exc) -> None:
        from attest.main import close_resources

        close_resources(self.state)


def result(call) -> dict:
    """A successful tool result's JSON (the text content and the structured content agree)."""
    assert not call.is_error, call.content[0].text
    data = json.loads(call.content[0].text)
    assert data == call.structured_content
    return data


def error_text(call) -> str:
    assert call.is_error, call.content[0].text[:500]
    return call.content[0].text


async def exercise_every_tool(client) -> None:
    """List the tools, then call each on the demo corpus and check what it says."""
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    rq_files = sorted(p.stem for p in (REPO / "queries").glob("*.rq"))
    assert set(listed) == BUILT_IN | {"query_" + name.replace("-", "_") for name in rq_files}
    assert set(listed["kag_query"].input_schema["properties"]) == {"query", "entities", "include_relations", "max_hops",
                                                                   "limit", "k", "as_of"}

    context = result(await client.call_tool("kag_query", {"query": "Which database does Oxigraph use?",
                                                          "max_hops": 1, "limit": 10}))
    assert "rocksdb" in [e["id"] for e in context["entities"]]
    assert any(r["subject"] == "oxigraph" and r["object"] == "rocksdb" for r in context["relations"]), context["relations"]
    assert "<<entity:rocksdb>>" in context["context"] and "<<relation:" in context["context"]
    assert context["sources"] and len(context["entities"]) <= 10

    rows = result(await client.call_tool("sparql_query", {
        "query": PREFIXES + "SELECT DISTINCT ?label WHERE { entity:oxigraph ont:uses ?db . ?db rdfs:label ?label }"}))
    assert rows["media_type"].startswith("application/sparql-results+json") and rows["truncated"] is None
    assert [b["label"]["value"] for b in json.loads(rows["result"])["results"]["bindings"]] == ["RocksDB"]
    graph = result(await client.call_tool("sparql_query", {"query": PREFIXES + "DESCRIBE entity:rocksdb"}))
    assert graph["media_type"].startswith("text/turtle") and "RocksDB" in graph["result"]

    report = result(await client.call_tool("verify_citations", {
        "text": "Oxigraph uses RocksDB <<relation:oxigraph|uses|rocksdb>>. It was written on the Moon <<entity:no-such-thing>>."}))
    statuses = {c["ref"]: c["status"] for claim in report["claims"] for c in claim["citations"]}
    assert statuses == {"oxigraph|uses|rocksdb": "asserted", "no-such-thing": "not_found"}
    assert report["claims"][0]["confidence"] == 1.0 and "removed" in report["claims"][1]["flags"]

    proof = result(await client.call_tool("explain_fact", {"subject": "oxigraph", "predicate": "ont:relatesTo",
                                                           "object": "rocksdb"}))
    assert proof["status"] == "inferred" and proof["depth"] >= 1 and proof["rule"].startswith("prp-")

    card = result(await client.call_tool("get_entity", {"id": "oxigraph", "limit": 2}))
    assert card["label"] == "Oxigraph" and ONT + "Database" in card["types"]
    assert len(card["facts"]) == 2 and card["facts_next"]
    more = result(await client.call_tool("get_entity", {"id": "oxigraph", "limit": 2, "facts_cursor": card["facts_next"]}))
    assert more["facts"] and more["facts"] != card["facts"]

    answered = result(await client.call_tool("answer", {"question": "Which database does Oxigraph use?",
                                                        "mode": "extractive"}))
    assert answered["mode"] == "extractive" and answered["answers"][0]["id"] == "rocksdb"
    assert "Oxigraph uses RocksDB <<relation:" in answered["text"]
    assert answered["confidence"] > 0.5

    for name, (arguments, expected) in NAMED_CALLS.items():
        out = result(await client.call_tool(name, arguments))
        assert expected in out["result"], (name, out["result"][:300])
