"""Helpers for the valid-time tests: dated facts ingested through the LLM extractor against the fake server."""

from __future__ import annotations

import json

from pyoxigraph import NamedNode

from attest.ingest.load import LoadedDocument
from attest.vocab import ATT, ONT, RDF

E = "https://w3id.org/attest/entity/"


def person_at(person: str, org: str, predicate: str = "worksFor", valid_from: str | None = None,
              valid_to: str | None = None, object_type: str = "Organization") -> str:
    """An extraction reply: a person, an organization (or `object_type`) and one (dated) relation between them."""
    rel = {"subject": person, "predicate": predicate, "object": org, "confidence": 0.9,
           "valid_from": valid_from, "valid_to": valid_to}
    return json.dumps({"entities": [{"name": person, "type": "Person", "confidence": 0.9, "description": ""},
                                    {"name": org, "type": object_type, "confidence": 0.9, "description": ""}],
                       "relations": [rel]})


def ingest_text(pipeline, source: str, text: str):
    return pipeline.ingest(LoadedDocument(source=source, media_type="text/plain", text=text, size_bytes=len(text)))


def intervals(store, iris) -> dict[tuple[str, str, str], tuple]:
    """graph/validity as {(s, p, o) local names: (validFrom, validTo, superseded by (object local name))}."""
    rows = store.query(f"""SELECT ?s ?p ?o ?from ?to ?by WHERE {{ GRAPH <{iris.validity_graph}> {{
      ?r <{RDF}reifies> <<( ?s ?p ?o )>> OPTIONAL {{ ?r <{ATT}validFrom> ?from }} OPTIONAL {{ ?r <{ATT}validTo> ?to }}
      OPTIONAL {{ ?r <{ATT}supersededBy> ?n . ?n <{RDF}reifies> <<( ?s ?p ?by )>> }} }} }}""")

    def short(term) -> str | None:
        if term is None:
            return None
        return term.value.removeprefix(E).removeprefix(ONT) if isinstance(term, NamedNode) else term.value
    return {(short(r["s"]), short(r["p"]), short(r["o"])): (short(r["from"]), short(r["to"]), short(r["by"]))
            for r in rows}


def ingest_all(settings, replies_and_texts: list[tuple[str, str]], fake_llm) -> list[str]:
    """Ingest (extraction reply, text) pairs through the LLM pipeline into the settings' store, then close it
    (the app opens it afterwards); returns the document ids."""
    from attest.store import open_store
    from tests.ingest_support import llm_pipeline

    store = open_store(settings)
    try:
        pipeline = llm_pipeline(store, settings)
        ids = []
        for i, (reply, text) in enumerate(replies_and_texts):
            fake_llm.reply(reply)
            ids.append(ingest_text(pipeline, f"doc{i}.txt", text).doc_id)
        return ids
    finally:
        store.close()
