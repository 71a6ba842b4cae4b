"""Benchmark: the offline ingest pipeline on generated documents (chunks/s, triples/s, time per stage, bulk write).

    python bench/ingest.py [--docs 1000] [--paragraphs 6] [--bulk-triples 500000]

Every stage runs for real: load (bytes -> text), clean + chunk, the offline rule extractor (spaCy), the
extraction validator, entity resolution (rapidfuzz), RDF mapping, the SHACL gate (pyshacl) and the
atomic commit into an on-disk Oxigraph store. "Pipeline cost per chunk" is everything except the
extractor call (which an LLM would replace). The bulk-write figure is the store's bulk path
(EmbeddedStore.bulk_load_file: Oxigraph's bulk loader under the crash marker that rolls a failed load
back) on a generated N-Triples file of --bulk-triples triples; the committed quads are also written
again into fresh stores (bulk loader, one transaction) and into rdflib (Dataset.addN) as peers.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TECH = ["Oxigraph", "Apache Jena", "RDFLib", "Blazegraph", "Virtuoso", "GraphDB", "Stardog", "AllegroGraph",
        "RocksDB", "PostgreSQL", "Neo4j", "Elasticsearch", "PyTorch", "TensorFlow", "Kubernetes", "Docker"]
LANGS = ["SPARQL", "OWL", "SHACL", "Turtle", "JSON-LD", "RDF Schema", "Python", "Rust", "Java"]
ORGS = ["Acme Labs", "Globex Research", "Initech University", "Umbrella Foundation", "Stark Industries",
        "Wayne Enterprises", "Cyberdyne Systems", "Tyrell Corporation"]
PEOPLE = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth",
          "Frances Allen", "John McCarthy"]
CONCEPTS = ["knowledge graph", "entity linking", "semantic search", "graph embedding", "query optimization"]

TEMPLATES = [
    "{t1} is a triple store written in {l1}. {t1} uses {t2} for storage and implements {l2}.",
    "{t1} was developed by {o1}. {p1} works for {o1}, which is located in Berlin.",
    "{p1} proposed {c1} in a paper that cites earlier work on {c2}. {t1} improves on {t2} for {c1}.",
    "The {o1} team uses {t1} and {t2}. {t2} is part of the {t3} platform.",
    "{l1} is a language for querying graphs; {t1} implements {l1} and {l2}. {p1} founded {o2}.",
    "In practice {t3} uses {l2} files exported by {t1}. {o2} is a member of {o1}.",
]


def make_document(rng: random.Random, n: int, paragraphs: int) -> str:
    parts = [f"# Report {n}\n"]
    for _ in range(paragraphs):
        sentences = []
        for _ in range(4):
            t1, t2, t3 = rng.sample(TECH, 3)
            l1, l2 = rng.sample(LANGS, 2)
            o1, o2 = rng.sample(ORGS, 2)
            (p1,) = rng.sample(PEOPLE, 1)
            c1, c2 = rng.sample(CONCEPTS, 2)
            sentences.append(rng.choice(TEMPLATES).format(t1=t1, t2=t2, t3=t3, l1=l1, l2=l2, o1=o1, o2=o2,
                                                          p1=p1, c1=c1, c2=c2))
        parts.append(" ".join(sentences))
    return "\n\n".join(parts)


class CpuTimed:
    """The real extractor, with the CPU time of its calls added up (to report the pipeline's cost without it).
    Thread time: the extractor runs on the calling thread, and the store's background threads must not count here."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.cpu = inner, inner.name, 0.0

    def extract(self, text: str):
        start = time.thread_time()
        try:
            return self.inner.extract(text)
        finally:
            self.cpu += time.thread_time() - start


def write_generated_triples(path: Path, n: int, rng: random.Random) -> int:
    """N-Triples shaped like extracted facts: typed entities with labels, confidences and relations between them."""
    ont, ent = "https://w3id.org/attest/ontology#", "https://example.org/kg/entity/"
    classes = ["Person", "Organization", "TripleStore", "Language", "Concept", "Company"]
    relations = ["uses", "implements", "worksFor", "memberOf", "cites", "improves"]
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for i in range(n // 5 + 1):
            s = f"<{ent}e{i}>"
            out.write(f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{ont}{rng.choice(classes)}> .\n"
                      f"{s} <http://www.w3.org/2000/01/rdf-schema#label> \"entity {i}\"@en .\n"
                      f"{s} <https://w3id.org/attest/vocab#confidence> \"0.{rng.randint(1, 99):02}\""
                      f"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n")
            for _ in range(2):
                out.write(f"{s} <{ont}{rng.choice(relations)}> <{ent}e{rng.randrange(n // 5 + 1)}> .\n")
            written += 5
    return written


def bulk_write(tmp: Path, settings, n: int, rng: random.Random) -> tuple[int, float]:
    """Triples per second through the store's bulk path, generated file to committed graph."""
    from attest.store import open_store

    source = tmp / "bulk.nt"
    count = write_generated_triples(source, n, rng)
    store = open_store(settings.model_copy(update={"data_dir": tmp / "bulk-file"}))
    t = time.perf_counter()
    loaded = store.bulk_load_file(source, graph="https://example.org/kg/graph/bulk")
    store.raw.flush()
    seconds = time.perf_counter() - t
    store.close()
    assert loaded == count, (loaded, count)
    return count, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000, help="documents to generate and ingest")
    parser.add_argument("--paragraphs", type=int, default=6, help="paragraphs per document")
    parser.add_argument("--bulk-triples", type=int, default=500_000, help="generated triples for the bulk-write step")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    import rdflib
    from pyoxigraph import Triple

    from attest.extract.ontology_terms import load_terms
    from attest.ingest.pipeline import IngestPipeline
    from attest.ingest.session import rule_extractor
    from attest.ontology import load_ontology
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        for i in range(args.docs):
            (corpus / f"doc{i:05}.md").write_text(make_document(rng, i, args.paragraphs), encoding="utf-8")
        settings = load_settings(None, data_dir=Path(tmp) / "data", ontology_dir=REPO / "ontology",
                                 shapes_dir=REPO / "shapes", reason_after_ingest=False)
        store = open_store(settings)
        load_ontology(store, settings.ontology_dir, Iris(settings.base_iri))
        terms = load_terms(settings.ontology_dir)
        extractor = CpuTimed(rule_extractor(store, settings, terms))
        pipeline = IngestPipeline(store, settings, extractor, terms=terms)

        stages: dict[str, float] = defaultdict(float)
        chunks = triples = quarantined = failed = 0
        start, cpu_start, thread_start = time.perf_counter(), time.process_time(), time.thread_time()
        with pipeline.batched(settings.ingest_batch_quads):  # as `attest ingest` commits many new documents
            for path in sorted(corpus.iterdir()):
                report = pipeline.ingest_path(path, path.name)
                if report.status != "done":
                    failed += 1
                    continue
                chunks += report.chunks
                triples += report.triples
                quarantined += len(report.quarantined)
                for stage, seconds in report.timings.items():
                    stages[stage] += seconds
            batch_start = time.perf_counter()
        stages["write"] += time.perf_counter() - batch_start  # the last batch is written on leaving the block
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        thread_cpu = time.thread_time() - thread_start
        load_avg = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        # bulk write: every committed document quad into a fresh store, one transaction
        quads = [q for g in store.graphs() if g.startswith(pipeline.iris.document_graph_prefix) for q in store.quads(g)]
        store.close()
        fresh = open_store(settings.model_copy(update={"data_dir": Path(tmp) / "bulk"}))
        t = time.perf_counter()
        fresh.add(quads)
        add_s = time.perf_counter() - t
        fresh.close()
        fresh = open_store(settings.model_copy(update={"data_dir": Path(tmp) / "bulk2"}))
        t = time.perf_counter()
        fresh.raw.bulk_extend(quads)  # Oxigraph's bulk loader: no transaction, for initial loads
        fresh.raw.flush()
        bulk_s = time.perf_counter() - t
        fresh.close()
        from attest.ingest.shacl_gate import to_rdf

        dataset = rdflib.Dataset()
        converted = [(to_rdf(q.subject), to_rdf(q.predicate), to_rdf(q.object), dataset.graph(rdflib.URIRef(q.graph_name.value)))
                     for q in quads if not isinstance(q.object, Triple)]  # rdflib has no RDF 1.2 triple terms
        t = time.perf_counter()
        dataset.addN(converted)
        rdflib_s = time.perf_counter() - t
        bulk_n, bulk_file_s = bulk_write(Path(tmp), settings, args.bulk_triples, rng)

    total_stage = sum(stages.values())
    overhead = total_stage - stages["extract"]
    print(f"## Ingest\n\nCommand: `python bench/ingest.py --docs {args.docs} --paragraphs {args.paragraphs} "
          f"--bulk-triples {args.bulk_triples}`\n")
    print(f"- documents: {args.docs} ({failed} failed), chunks: {chunks}, triples committed: {triples}, "
          f"items quarantined: {quarantined}")
    print(f"- wall time: {wall:.1f} s -> {chunks / wall:.1f} chunks/s, {triples / wall:,.0f} triples/s end to end")
    print(f"- pipeline cost per chunk without the extractor call (target < 20 ms): {1000 * overhead / chunks:.2f} ms "
          f"wall, {1000 * (thread_cpu - extractor.cpu) / chunks:.2f} ms CPU on the pipeline's thread, "
          f"{1000 * (cpu - extractor.cpu) / chunks:.2f} ms CPU of the whole process (adds the bulk loader's and "
          f"RocksDB's background threads); the offline rule extractor adds {1000 * extractor.cpu / chunks:.2f} ms CPU "
          f"per chunk")
    print(f"- bulk write through the store's bulk path (bulk_load_file: the bulk loader under the crash marker) of "
          f"{bulk_n:,} generated triples: {bulk_file_s:.2f} s -> **{bulk_n / bulk_file_s:,.0f} triples/s** "
          f"(target >= 100k/s)")
    print(f"- bulk write of the {len(quads):,} committed quads into a fresh store: bulk loader {bulk_s:.2f} s -> "
          f"{len(quads) / bulk_s:,.0f} quads/s (one bulk_extend call of Python quads); one transaction (store.add, what commits use) "
          f"{len(quads) / add_s:,.0f} quads/s; peer rdflib Dataset.addN {len(converted) / rdflib_s:,.0f} quads/s "
          f"(bulk loader x{(len(quads) / bulk_s) / (len(converted) / rdflib_s):.1f})")
    print(f"- machine: {os.cpu_count()} cores, load average during the run {load_avg}")
    print("\n| stage (wall clock) | total s | ms per chunk | share |\n|---|---:|---:|---:|")
    for stage, seconds in stages.items():
        print(f"| {stage} | {seconds:.2f} | {1000 * seconds / chunks:.2f} | {100 * seconds / total_stage:.1f}% |")


if __name__ == "__main__":
    main()
