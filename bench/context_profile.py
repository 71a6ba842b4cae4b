"""Profile: where /context's and /answer's time goes, stage by stage, in process over an ingested store.

    python bench/context_profile.py --data-dir DIR [--set 2wiki|hotpotqa] [--queries 100] [--answer] [--cold]
    python bench/context_profile.py --data-dir DIR --dump FILE    # also write every response's `sources` as JSON
                                                                  # (and its paths, entities and relations beside)
    python bench/context_profile.py --data-dir DIR --rows         # also count the rows each kind of read took
    python bench/context_profile.py --data-dir DIR --gc           # also time the garbage collector's passes
    python bench/context_profile.py --scale DIR/docs-50000/attest.yaml --warmup 10 --slowest 10   # bench/scale.py's

DIR is a `bench/docqa.py --data-dir` folder (its `<set>/attest.yaml` names the store; no server may hold it). The
queries are docqa.py's: the 2wiki set's 100 seeded paragraphs' first sentences, the HotpotQA questions. With --scale,
the store is a `bench/scale.py` one (the attest.yaml it writes beside its corpus) and the queries are the /context
questions scale.py asks it (its generator and seed). Each runs once
through AnswerService.context (or .answer with --answer, extractive), as a served instance runs them: lookups are
remembered across requests until a write (`--cold` forgets them before each request, as a write would). Every stage's
own time (its callees' stages left out) is measured as wall clock and as the thread's CPU time; "other" is the rest of
the request. Serialization is the response's JSON dump (what FastAPI's response model does besides validation).
`--rows` counts the rows the store returned to the fact reads, by kind, over the measured requests: a measure of
their work that the machine's load does not move (it runs on older checkouts too, where a kind may be missing).
`--gc` times every collection the measured requests met (through `gc.callbacks`), by generation, and which requests
held a full one.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct  # noqa: E402

# (stage, module, class, method): each wrapped method's own time goes to its stage
STAGES = [
    ("label index", "attest.answer.lookup", "GraphLookup", "label_index"),
    ("linking", "attest.answer.linking", "LabelMatcher", "__init__"),
    ("linking", "attest.answer.linking", "LabelMatcher", "link"),
    ("linking: near misses", "attest.answer.linking", "LabelMatcher", "_near_misses"),
    ("linking", "attest.answer.linking", "LabelMatcher", "mentions"),
    ("path search", "attest.answer.paths", "PathSearch", "__init__"),
    ("path search", "attest.answer.paths", "PathSearch", "search"),
    ("path search: predicate relevance", "attest.answer.paths", None, "relevance"),
    ("path search: predicate relevance", "attest.answer.paths", None, "term_matches"),
    ("path search: predicate relevance", "attest.answer.paths", None, "relevance_of"),
    ("path search: predicate relevance", "attest.answer.paths", None, "term_matches_many"),
    ("fact reads: degrees", "attest.answer.lookup", "GraphLookup", "degrees"),
    ("fact reads: predicate counts", "attest.answer.lookup", "GraphLookup", "predicate_counts"),
    ("fact reads: touching", "attest.answer.lookup", "GraphLookup", "facts_touching"),
    ("fact reads: hubs", "attest.answer.lookup", "GraphLookup", "hub_facts"),
    ("property texts", "attest.answer.lookup", "GraphLookup", "property_texts"),
    ("property texts", "attest.answer.lookup", "GraphLookup", "properties_in_use"),
    ("valid time", "attest.answer.lookup", "GraphLookup", "validity"),
    ("entity details", "attest.answer.lookup", "GraphLookup", "details"),
    ("support counts", "attest.answer.lookup", "GraphLookup", "documents"),
    ("derivation depths", "attest.answer.retrieve", "Retriever", "_depths"),
    ("full-text search", "attest.store.fulltext", "FullText", "search"),
    ("passage ranking", "attest.answer.passages", "PassageRanker", "rank"),
    ("passage ranking: second passage's BM25", "attest.store.fulltext", "FullText", "bm25_of"),
    ("passage ranking: second passage", "attest.answer.passages", "PassageRanker", "_second"),
    ("passage ranking: walk", "attest.answer.passages", "PassageRanker", "_walk"),
    ("passage ranking: index reads, names", "attest.answer.passages", "PassageRanker", "_entities_of"),
    ("passage ranking: index reads, topics", "attest.answer.passages", "PassageRanker", "_topics_of"),
    ("passage ranking: index reads, topic chunks", "attest.answer.passages", "PassageRanker", "_topic_chunks"),
    ("passage ranking: index reads, passage counts", "attest.answer.passages", "PassageRanker", "_passage_counts"),
    ("passage ranking: index reads, chunk texts", "attest.answer.passages", "PassageRanker", "_read"),
    ("passage ranking: index reads, documents", "attest.answer.passages", "PassageRanker", "_documents"),
    ("context text", "attest.answer.retrieve", "Retriever", "_text"),
    ("answer: compose", "attest.answer.service", None, "compose_answer"),
    ("answer: verify", "attest.answer.verify", "Verifier", "verify"),
    ("answer: sparql", "attest.answer.service", "AnswerService", "answer_sparql"),
]


# (kind, GraphLookup method): the store rows read inside the method count for the kind (the innermost one)
ROW_KINDS = [("whole reads of nodes", "_read_touching"), ("hub samples", "hub_facts"),
             ("degrees / predicate counts", "_read_degrees"), ("degrees / predicate counts", "_read_predicate_counts"),
             ("facts out of subjects", "_read_from"), ("entity details", "_read_details")]


class Rows:
    """Rows of the store's answers to GraphLookup, counted per ROW_KINDS kind (and queries per kind)."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = defaultdict(int)
        self.queries: dict[str, int] = defaultdict(int)
        self.kinds: list[str] = []
        self.on = False

    def install(self) -> None:
        from attest.answer import lookup

        for kind, method in ROW_KINDS:
            if hasattr(lookup.GraphLookup, method):
                setattr(lookup.GraphLookup, method, self._within(kind, getattr(lookup.GraphLookup, method)))
        solutions = lookup.solutions

        def counted(result: Any) -> Any:
            kind = self.kinds[-1] if self.kinds and self.on else None
            if kind is not None:
                self.queries[kind] += 1
            for row in solutions(result):
                if kind is not None:
                    self.rows[kind] += 1
                yield row
        lookup.solutions = counted

    def _within(self, kind: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def counting(*args: Any, **kwargs: Any) -> Any:
            self.kinds.append(kind)
            try:
                return fn(*args, **kwargs)
            finally:
                self.kinds.pop()
        return counting


class Collections:
    """Each garbage collection during the measured requests: (generation, wall ms, request number)."""

    def __init__(self) -> None:
        self.passes: list[tuple[int, float, int]] = []
        self.request = -1
        self._start = 0.0

    def install(self) -> None:
        import gc

        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif self.request >= 0:
            self.passes.append((info["generation"], (time.perf_counter() - self._start) * 1000, self.request))

    def report(self) -> list[str]:
        out = []
        for generation in (0, 1, 2):
            times = [ms for g, ms, _ in self.passes if g == generation]
            if times:
                out.append(f"- generation {generation}: {len(times)} collections, {sum(times):.1f} ms in all, "
                           f"longest {max(times):.1f} ms")
        full = [(ms, r) for g, ms, r in self.passes if g == 2]
        if full:
            out.append("- full collections (ms, request number): " + ", ".join(f"{ms:.1f} in #{r}" for ms, r in full))
        return out or ["- no collection"]


class Clock:
    """Exclusive wall and CPU time per stage for the current request (a stage's callees in stages are subtracted)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.stack: list[list[float]] = []  # per open stage: [wall spent in child stages, cpu spent in child stages]

    def wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.stack.append([0.0, 0.0])
            w0, c0 = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                w, c = time.perf_counter() - w0, time.thread_time() - c0
                child_w, child_c = self.stack.pop()
                self.wall[stage] += w - child_w
                self.cpu[stage] += c - child_c
                if self.stack:
                    self.stack[-1][0] += w
                    self.stack[-1][1] += c
        return timed

    def reset(self) -> None:
        self.wall.clear()
        self.cpu.clear()


def instrument(clock: Clock) -> None:
    import importlib

    for stage, module_name, cls_name, method in STAGES:
        module = importlib.import_module(module_name)
        owner = getattr(module, cls_name) if cls_name else module
        if hasattr(owner, method):  # an older checkout may lack a stage
            setattr(owner, method, clock.wrap(stage, getattr(owner, method)))


def queries(name: str, n: int, seed: int) -> list[str]:
    """docqa.py's queries for a set: the 2wiki seeded paragraphs' first sentences, the HotpotQA questions."""
    from docqa import DOCQA, load_corpus

    if name == "hotpotqa":
        return [q["question"] for q in json.loads((DOCQA / "hotpotqa.json").read_text(encoding="utf-8"))[:n]]
    sample = random.Random(seed).sample(load_corpus(DOCQA / f"{name}_corpus.json"), min(n, 100))
    return [re.split(r"(?<=[.!?])\s+", text, maxsplit=1)[0][:300] for _, text in sample]


def scale_queries(n: int) -> list[str]:
    """bench/scale.py's /context questions, in the order its measure() asks them (its seed)."""
    from scale import question

    rng = random.Random(7)
    return [question(rng) for _ in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, help="a bench/docqa.py --data-dir folder")
    parser.add_argument("--scale", type=Path, help="a bench/scale.py store's attest.yaml (instead of --data-dir)")
    parser.add_argument("--warmup", type=int, default=0, help="also ask the first N queries before measuring")
    parser.add_argument("--settle", action="store_true",
                        help="freeze what start-up holds out of the garbage collector, as a served app does")
    parser.add_argument("--set", default="2wiki", choices=["hotpotqa", "2wiki"])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--answer", action="store_true", help="profile /answer (extractive) instead of /context")
    parser.add_argument("--cold", action="store_true", help="forget every remembered lookup before each request")
    parser.add_argument("--slowest", type=int, default=0, help="also show the N slowest requests' largest stages")
    parser.add_argument("--dump", type=Path, help="write each query's `sources` (and, beside, its paths) as JSON")
    parser.add_argument("--rows", action="store_true", help="also count the store rows each kind of fact read took")
    parser.add_argument("--gc", action="store_true", help="also time the garbage collections during the requests")
    args = parser.parse_args()
    if (args.data_dir is None) == (args.scale is None):
        parser.error("give one of --data-dir and --scale")

    from attest.answer.inference import reasoner_inference
    from attest.answer.memo import forget
    from attest.answer.retrieve import ContextQuery
    from attest.answer.service import AnswerService
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    config = args.scale if args.scale is not None else args.data_dir / args.set / "attest.yaml"
    if args.scale is not None and not config.exists():
        sys.exit(f"{config} not found: a bench/scale.py --data-dir folder holds docs-N/attest.yaml")
    if not config.exists():
        sys.exit(f"{config} not found: ingest first with python bench/docqa.py --set {args.set} --data-dir {args.data_dir}")
    settings = load_settings(config, ontology_dir=REPO / "ontology", shapes_dir=REPO / "shapes",
                             queries_dir=REPO / "queries", llm_base_url="http://127.0.0.1:9/v1")
    store = open_store(settings, read_only=True)
    iris = Iris(settings.base_iri)
    clock = Clock()
    instrument(clock)
    rows = Rows()
    if args.rows:
        rows.install()
    service = AnswerService(store, iris, settings, reasoner_inference(store, iris, settings), owner=store)
    if args.settle:
        from attest import heap

        heap.settle()  # as open_resources ends
    service.context(ContextQuery(query="warm up", limit=20))  # builds the label index, as docqa.py's warm-up does
    asked = scale_queries(args.queries) if args.scale is not None else queries(args.set, args.queries, args.seed)
    for text in asked[:args.warmup]:
        service.context(ContextQuery(query=text, limit=20, max_hops=2))
    rows.on = True
    collections = Collections()
    if args.gc:
        collections.install()
    walls: dict[str, list[float]] = defaultdict(list)
    cpus: dict[str, list[float]] = defaultdict(list)
    totals, total_cpu, dumped, paths = [], [], [], []
    requests: list[tuple[float, int, str, dict[str, float]]] = []
    for number, text in enumerate(asked):
        collections.request = number
        if args.cold:
            forget(store)
        clock.reset()
        w0, c0 = time.perf_counter(), time.thread_time()
        if args.answer:
            response: Any = service.answer(text, mode="extractive", max_hops=2, limit=20)
        else:
            response = service.context(ContextQuery(query=text, limit=20, max_hops=2))
        s0, sc0 = time.perf_counter(), time.thread_time()
        response.model_dump_json()
        clock.wall["serialization"] += time.perf_counter() - s0
        clock.cpu["serialization"] += time.thread_time() - sc0
        wall, cpu = time.perf_counter() - w0, time.thread_time() - c0
        totals.append(wall * 1000)
        total_cpu.append(cpu * 1000)
        clock.wall["other"] += wall - sum(clock.wall.values())
        clock.cpu["other"] += cpu - sum(clock.cpu.values())
        requests.append((cpu * 1000, number, text, {k: v * 1000 for k, v in clock.cpu.items()}))
        for stage in set(clock.wall) | {s for s, *_ in STAGES}:
            walls[stage].append(clock.wall.get(stage, 0.0) * 1000)
            cpus[stage].append(clock.cpu.get(stage, 0.0) * 1000)
        if args.dump is not None and not args.answer:
            dumped.append({"query": text, "sources": [s.model_dump(mode="json") for s in response.sources]})
            paths.append({"query": text, "paths": [p.model_dump(mode="json") for p in response.paths],
                          "entities": [e.id for e in response.entities],
                          "relations": [r.model_dump(mode="json") for r in response.relations]})
    collections.request = -1
    store.close()
    if args.dump is not None:
        args.dump.write_text(json.dumps(dumped, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        args.dump.with_suffix(".paths.json").write_text(json.dumps(paths, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    route = "/answer (extractive)" if args.answer else "/context"
    name = "bench/scale.py" if args.scale is not None else args.set
    print(f"{route} in process, {len(totals)} queries of {name}{', nothing remembered' if args.cold else ''}")
    print(f"whole request: wall p50 {statistics.median(totals):.1f} / p95 {pct(totals, 0.95):.1f} / mean "
          f"{statistics.mean(totals):.1f} ms; CPU p50 {statistics.median(total_cpu):.1f} / p95 {pct(total_cpu, 0.95):.1f} "
          f"/ mean {statistics.mean(total_cpu):.1f} ms")
    print()
    print("| stage (own time) | wall p50 | wall p95 | wall mean | CPU mean | CPU p95 | share of wall |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    whole = sum(totals)
    for stage in sorted(walls, key=lambda s: -sum(walls[s])):
        if not any(walls[stage]):
            continue
        w = walls[stage]
        print(f"| {stage} | {statistics.median(w):.1f} | {pct(w, 0.95):.1f} | {statistics.mean(w):.1f} | "
              f"{statistics.mean(cpus[stage]):.1f} | {pct(cpus[stage], 0.95):.1f} | {100 * sum(w) / whole:.0f}% |")
    if args.rows:
        print()
        for kind in sorted(rows.rows):
            print(f"- {kind}: {rows.rows[kind]} rows in {rows.queries[kind]} queries")
    if args.gc:
        print()
        print("\n".join(collections.report()))
    slowest = sorted(requests, key=lambda r: -r[0])[:args.slowest]
    if slowest:
        print()
        print(f"The {len(slowest)} slowest requests by CPU ({statistics.mean(r[0] for r in slowest):.1f} ms mean), "
              "own CPU time per stage:")
        print("| stage (own time) | CPU mean | CPU max |\n|---|---:|---:|")
        tail = {stage for r in slowest for stage in r[3]}
        for stage in sorted(tail, key=lambda s: -sum(r[3].get(s, 0.0) for r in slowest)):
            values = [r[3].get(stage, 0.0) for r in slowest]
            if any(v >= 0.05 for v in values):
                print(f"| {stage} | {statistics.mean(values):.1f} | {max(values):.1f} |")
    for cpu, number, text, stages in slowest:
        largest = sorted(stages.items(), key=lambda kv: -kv[1])[:4]
        print(f"- #{number} CPU {cpu:.1f} ms: {text[:70]!r}: " + ", ".join(f"{k} {v:.1f}" for k, v in largest))


if __name__ == "__main__":
    main()
