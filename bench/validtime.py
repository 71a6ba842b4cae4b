"""Benchmark: what valid time adds to /context and to a commit, on a store holding many validity records.

    python bench/validtime.py [--people 50000] [--rounds 200]

Builds an embedded store whose graph/validity holds two employer records per person (a superseded one and its
successor: 2 x --people records) and whose document graphs state those facts (two statements per person, one
document graph per 100 people). Measures (1) the one batched lookup /context makes for the valid time of the
facts it shows (attest/answer/validtime.py read_validity, 20 facts of 20 subjects, the memo bypassed) and (2) the
recomputation a commit makes for the (subject, predicate) pairs its document touches (attest/ingest/validity.py
change, a new document stating a third employer of 30 people). p50 and p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pyoxigraph import Literal, NamedNode, Quad, Triple  # noqa: E402

from attest.answer.validtime import read_validity  # noqa: E402
from attest.ingest import validity  # noqa: E402
from attest.vocab import ATT, ONT, OWL, PROV, RDF, XSD, Iris  # noqa: E402

IRIS = Iris("https://w3id.org/attest/")
WORKS_FOR = NamedNode(ONT + "worksFor")


def statement(graph: NamedNode, person: NamedNode, org: NamedNode, start: str, n: int) -> list[Quad]:
    st = NamedNode(f"{IRIS.base}statement/{n}")
    return [Quad(person, WORKS_FOR, org, graph), Quad(st, NamedNode(RDF + "reifies"), Triple(person, WORKS_FOR, org), graph),
            Quad(st, NamedNode(ATT + "validFrom"), Literal(start, datatype=NamedNode(XSD + "date")), graph)]


def build(store, people: int) -> None:
    quads = [Quad(WORKS_FOR, NamedNode(ATT + "changesOverTime"), Literal(True), NamedNode(IRIS.ontology_graph)),
             Quad(WORKS_FOR, NamedNode(RDF + "type"), NamedNode(OWL + "ObjectProperty"), NamedNode(IRIS.ontology_graph))]
    for i in range(people):
        graph = NamedNode(IRIS.document_graph(f"d{i // 100}"))
        person = NamedNode(IRIS.entity(f"p{i}"))
        quads += statement(graph, person, NamedNode(IRIS.entity(f"o{i % 500}")), "2020-01-01", 2 * i)
        quads += statement(graph, person, NamedNode(IRIS.entity(f"o{(i + 1) % 500}")), "2022-01-01", 2 * i + 1)
    for d in range((people + 99) // 100):
        quads.append(Quad(NamedNode(f"{IRIS.base}activity/d{d}"), NamedNode(PROV + "startedAtTime"),
                          Literal("2026-01-01T00:00:00+00:00", datatype=NamedNode(XSD + "dateTime")),
                          NamedNode(IRIS.document_graph(f"d{d}"))))
    store.raw.bulk_extend(quads)
    validity.rebuild(store, IRIS)


def timed(fn, rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=50000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    from attest.settings import load_settings
    from attest.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(load_settings(None, data_dir=Path(tmp)))
        t = time.perf_counter()
        build(store, args.people)
        records = sum(1 for _ in store.quads(IRIS.validity_graph))
        print(f"store built in {time.perf_counter() - t:.1f} s: {records} validity quads")
        step = max(1, args.people // 20)
        shown = [(IRIS.entity(f"p{i}"), WORKS_FOR.value, IRIS.entity(f"o{i % 500}")) for i in range(0, args.people, step)][:20]
        step = max(1, args.people // 30)
        found = read_validity(store, IRIS.validity_graph, shown)
        assert len(found) == len(shown) and all(v.state(date.today()) == "past" for v in found.values())
        p50, p95 = timed(lambda: read_validity(store, IRIS.validity_graph, shown), args.rounds)
        print(f"/context valid-time lookup (20 facts): p50 {p50:.2f} ms, p95 {p95:.2f} ms")
        graph = NamedNode(IRIS.document_graph("new"))
        document = [q for i in range(30) for q in statement(graph, NamedNode(IRIS.entity(f"p{i * step}")),
                                                            NamedNode(IRIS.entity("o-new")), "2024-06-01", 10**9 + i)]
        change = validity.change(store, IRIS, {graph.value: document})
        print("facts whose interval the commit changes:", len(change.triples))
        p50, p95 = timed(lambda: validity.change(store, IRIS, {graph.value: document}), max(10, args.rounds // 10))
        print(f"commit recomputation (30 subjects): p50 {p50:.2f} ms, p95 {p95:.2f} ms")
        store.close()


if __name__ == "__main__":
    main()
