"""Benchmark: /context and /verify latency (LLM excluded) on reasoned LUBM(5) plus the demo corpus, and time per citation.

    python bench/answer.py [--data-dir DIR] [--rounds 200]

The store is built once into DIR (default: a temporary directory): the ontology, univ-bench.ttl and
lubm5.nt.gz from ../shared/data/lubm, the demo corpus ingested with the offline extractor, then a full
OWL 2 RL materialization. The service runs under uvicorn on a loopback port and is called over HTTP.
/verify gets an answer with 20 citations (entities, context relation ids, relations by parts held only by
inference, labels written instead of ids, a made-up id). The peer measured in the same run is validation
with one SPARQL round trip per citation (what a design without batching does), on the same store.
What an entity or a triple resolves to is remembered until the store's next write (attest/answer/memo.py), so
repeated calls measure the warm path. "After a write" (HTTP): a one-triple SPARQL update into a scratch graph
precedes each call, so it pays for every lookup again, the label index rebuild and the workers' new snapshot;
"nothing remembered" (in process): the remembered lookups are dropped before each call, nothing else.
Targets: /context p95 < 100 ms; /verify (20 citations) p95 < 50 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

QUESTIONS = [
    "What does Oxigraph implement and what does it use?",
    "Which standards does Apache Jena implement?",
    "Who proposed YAGO?",
    "What is SHACL used for?",
    "How is SPARQL 1.1 related to SPARQL 1.0?",
    "What is RDFLib and which stores can it use?",
    "Who founded the W3C and where is it located?",
    "What are knowledge graph embeddings such as TransE and ComplEx?",
    "How do Wikidata and DBpedia differ?",
    "What does OWL extend?",
    "Which organization developed GraphDB?",
    "How does retrieval-augmented generation use knowledge graphs?",
]

# one SPARQL round trip per citation: the peer
ONE_ENTITY = "SELECT ?e WHERE { GRAPH ?g { ?e ?p ?o } } LIMIT 1"
ONE_TRIPLE = "SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
SCRATCH = "<urn:attest-bench:scratch>"  # the graph the "after a write" updates touch; dropped at the end


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def build(settings, shared: Path) -> dict[str, float]:
    from attest.extract.ontology_terms import load_terms
    from attest.ingest.pipeline import IngestPipeline
    from attest.ingest.session import rule_extractor
    from attest.ontology import load_ontology
    from attest.reasoner.reasoner import Reasoner
    from attest.store import open_store
    from attest.vocab import Iris

    iris = Iris(settings.base_iri)
    store = open_store(settings)
    times = {}
    try:
        t = time.perf_counter()
        load_ontology(store, settings.ontology_dir, iris)
        store.bulk_load_file(shared / "lubm" / "univ-bench.ttl")
        store.bulk_load_file(shared / "lubm" / "lubm5.nt.gz")
        times["load LUBM(5)"] = time.perf_counter() - t
        t = time.perf_counter()
        terms = load_terms(settings.ontology_dir)
        pipeline = IngestPipeline(store, settings, rule_extractor(store, settings, terms), terms=terms)
        for path in sorted((REPO / "demo" / "corpus").iterdir()):
            pipeline.ingest_path(path)
        times["ingest demo corpus"] = time.perf_counter() - t
        t = time.perf_counter()
        Reasoner(store, iris, settings).materialize(full=True)
        times["OWL 2 RL materialization"] = time.perf_counter() - t
    finally:
        store.close()
    return times


def write(http, i: int) -> None:
    """A one-triple write (alternately added and removed): the store's write generation moves on."""
    op = "INSERT DATA" if i % 2 == 0 else "DELETE DATA"
    update = f"{op} {{ GRAPH {SCRATCH} {{ <urn:attest-bench:s> <urn:attest-bench:p> <urn:attest-bench:o> }} }}"
    assert http.post("/sparql", data={"update": update}).status_code in (200, 204)


def twenty_citations(http) -> str:
    """An answer with 20 citations of every kind, built from what /context returns."""
    relations, entities = [], []
    for q in QUESTIONS[:6]:
        body = http.post("/context", json={"query": q, "limit": 20}).json()
        relations += body["relations"]
        entities += [e for e in body["entities"] if e["hops"] == 0]
    asserted = [r for r in relations if r["status"] == "asserted"]
    inferred = [r for r in relations if r["status"] == "inferred"]
    parts = []
    for r in asserted[:8]:
        parts.append(f"{r['text']} <<relation:{r['id']}>>.")
    for e in entities[:6]:
        parts.append(f"{e['label']} is in the graph <<entity:{e['id']}>>.")
    for r in (inferred or asserted)[:3]:
        parts.append(f"{r['text']} <<relation:{r['subject']}|{r['predicate']}|{r['object']}>>.")
    for e in entities[:2]:
        parts.append(f"Cited by label <<entity:{e['label']}>>.")
    parts.append("A made-up claim <<entity:no-such-entity-anywhere>>.")
    text = " ".join(parts)
    return text


def naive_verify(store, iris, text: str) -> int:
    """The peer: each citation resolved with its own query (entity existence, triple lookup, derivation depth)."""
    from pyoxigraph import NamedNode

    from attest.answer import queries as q
    from attest.answer.citations import parse_citations
    from attest.answer.lookup import split_relation_id
    from attest.reasoner.explain import Explainer
    from attest.vocab import ONT, is_valid_id

    explainer, queries = Explainer(store, iris), 0
    for c in parse_citations(text):
        if c.kind == "entity" and is_valid_id(c.ref):
            list(store.query(ONE_ENTITY, substitutions={"e": NamedNode(iris.entity(c.ref))}))
            queries += 1
        elif c.parts:
            s, p, o = NamedNode(iris.entity(c.parts[0])), NamedNode(ONT + c.parts[1]), NamedNode(iris.entity(c.parts[2]))
            rows = list(store.query(ONE_TRIPLE, substitutions={"s": s, "p": p, "o": o}))
            queries += 1
            if rows and all(r["g"].value == iris.inferred_graph for r in rows):
                explainer.derivation(__import__("pyoxigraph").Triple(s, p, o))
                queries += 1
        elif (rid := split_relation_id(c.ref)) is not None:
            list(store.query(q.with_values(q.FACTS_FROM, entities=[(NamedNode(iris.entity(rid[0])),)])))
            queries += 1
    return queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="Store directory, built on first use and reused afterwards")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()

    import logging

    import httpx

    from attest.answer.inference import reasoner_inference
    from attest.answer.memo import forget
    from attest.answer.retrieve import ContextQuery
    from attest.answer.service import AnswerService
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    shared = REPO.parent / "shared" / "data"
    if not (shared / "lubm" / "lubm5.nt.gz").exists():
        sys.exit(f"LUBM data not found under {shared}/lubm")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="attest-bench-answer-"))
    settings = load_settings(None, data_dir=data_dir, ontology_dir=REPO / "ontology", shapes_dir=REPO / "shapes",
                             queries_dir=REPO / "queries", llm_base_url="http://127.0.0.1:9/v1")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    marker = data_dir / "answer-bench-built"
    if not marker.exists():
        for stage, seconds in build(settings, shared).items():
            print(f"setup: {stage}: {seconds:.1f} s")
        marker.write_text("built\n")

    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # the service in its own process, as deployed: the client's work does not compete with it for the GIL
    server = subprocess.Popen([sys.executable, "-m", "attest.cli", "--data-dir", str(data_dir), "serve", "--port", str(port)],
                              cwd=REPO, env={**os.environ, "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
                                             "ATTEST_SHAPES_DIR": str(REPO / "shapes"), "ATTEST_QUERIES_DIR": str(REPO / "queries"),
                                             "ATTEST_LLM_BASE_URL": "http://127.0.0.1:9/v1"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # its updates are forms: a token-less Attest wants the header no HTML form can send (docs/security.md)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30, headers={"X-Requested-With": "bench"}) as http:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if http.get("/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    sys.exit("the service did not start (is another process holding the store?)")
                time.sleep(0.2)
            for q in QUESTIONS:  # warm-up
                assert http.post("/context", json={"query": q}).status_code == 200
            context_ms = []
            for i in range(args.rounds):
                t = time.perf_counter()
                r = http.post("/context", json={"query": QUESTIONS[i % len(QUESTIONS)]})
                context_ms.append(1000 * (time.perf_counter() - t))
                assert r.status_code == 200
            text = twenty_citations(http)
            report = http.post("/verify", json={"text": text}).json()
            n = sum(len(c["citations"]) for c in report["claims"])
            statuses = sorted({c["status"] for cl in report["claims"] for c in cl["citations"]})
            verify_ms = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                assert http.post("/verify", json={"text": text}).status_code == 200
                verify_ms.append(1000 * (time.perf_counter() - t))
            context_cold, verify_cold = [], []
            for i in range(args.rounds // 4):
                for samples, path, body in ((context_cold, "/context", {"query": QUESTIONS[i % len(QUESTIONS)]}),
                                            (verify_cold, "/verify", {"text": text})):
                    write(http, i)
                    t = time.perf_counter()
                    assert http.post(path, json=body).status_code == 200
                    samples.append(1000 * (time.perf_counter() - t))
            assert http.post("/sparql", data={"update": f"DROP SILENT GRAPH {SCRATCH}"}).status_code in (200, 204)
    finally:
        server.terminate()
        server.wait(timeout=60)

    store = open_store(settings, read_only=True)
    iris = Iris(settings.base_iri)
    try:
        print(f"store: {sum(store.graph_sizes().values()):,} quads")
        service = AnswerService(store, iris, settings, reasoner_inference(store, iris, settings))
        service.verify(text)
        calls = []
        original = store.query
        store.query = lambda *a, **k: (calls.append(1), original(*a, **k))[1]
        service.verify(text)
        batched_queries = len(calls)
        store.query = original
        inproc_ms, naive_ms, context_inproc, cold_inproc = [], [], [], []
        for i in range(args.rounds // 2):
            t = time.perf_counter()
            service.verify(text)
            inproc_ms.append(1000 * (time.perf_counter() - t))
            t = time.perf_counter()
            naive_queries = naive_verify(store, iris, text)
            naive_ms.append(1000 * (time.perf_counter() - t))
            t = time.perf_counter()
            service.context(ContextQuery(query=QUESTIONS[i % len(QUESTIONS)]))
            context_inproc.append(1000 * (time.perf_counter() - t))
        context_cold_inproc = []
        for i in range(args.rounds // 2):
            forget(store)  # nothing remembered: every lookup queries (the label index stays, as it does without writes)
            t = time.perf_counter()
            AnswerService(store, iris, settings, reasoner_inference(store, iris, settings)).verify(text)
            cold_inproc.append(1000 * (time.perf_counter() - t))
            forget(store)
            t = time.perf_counter()
            AnswerService(store, iris, settings, reasoner_inference(store, iris, settings)).context(
                ContextQuery(query=QUESTIONS[i % len(QUESTIONS)]))
            context_cold_inproc.append(1000 * (time.perf_counter() - t))
        forget(store)
        calls.clear()
        store.query = lambda *a, **k: (calls.append(1), original(*a, **k))[1]
        AnswerService(store, iris, settings, reasoner_inference(store, iris, settings)).verify(text)
        cold_queries = len(calls)
        store.query = original
    finally:
        store.close()

    c50, c95 = pct(context_ms, 0.5), pct(context_ms, 0.95)
    v50, v95 = pct(verify_ms, 0.5), pct(verify_ms, 0.95)
    i50, n50 = statistics.median(inproc_ms), statistics.median(naive_ms)
    print(f"POST /context ({len(QUESTIONS)} questions, {args.rounds} calls): p50 {c50:.1f} ms, p95 {c95:.1f} ms "
          f"(target p95 < 100 ms: {'met' if c95 < 100 else 'MISSED'})")
    print(f"POST /verify ({n} citations: {', '.join(statuses)}; {args.rounds} calls): p50 {v50:.1f} ms, p95 {v95:.1f} ms "
          f"(target p95 < 50 ms: {'met' if v95 < 50 else 'MISSED'})")
    print(f"after a write, over HTTP ({args.rounds // 4} calls each): /context p50 {pct(context_cold, 0.5):.1f} ms, "
          f"p95 {pct(context_cold, 0.95):.1f} ms; /verify p50 {pct(verify_cold, 0.5):.1f} ms, "
          f"p95 {pct(verify_cold, 0.95):.1f} ms")
    print(f"in process (no HTTP): /context p50 {statistics.median(context_inproc):.1f} ms, "
          f"p95 {pct(context_inproc, 0.95):.1f} ms; /verify p50 {i50:.1f} ms, p95 {pct(inproc_ms, 0.95):.1f} ms; "
          f"nothing remembered: /context p50 {statistics.median(context_cold_inproc):.1f} ms, "
          f"p95 {pct(context_cold_inproc, 0.95):.1f} ms; /verify p50 {statistics.median(cold_inproc):.1f} ms, "
          f"p95 {pct(cold_inproc, 0.95):.1f} ms")
    print(f"validation per citation: {v50 / n:.2f} ms over HTTP (p50), {i50 / n:.2f} ms in process; "
          f"{batched_queries} SPARQL queries for all {n} when remembered, {cold_queries} when not")
    w50 = statistics.median(cold_inproc)
    print(f"peer, one query per citation ({naive_queries} queries, resolution only, no scoring): {n50:.1f} ms p50 "
          f"vs batched {w50:.1f} ms with nothing remembered (with scoring and traces): {n50 / w50:.1f}x")


if __name__ == "__main__":
    main()
