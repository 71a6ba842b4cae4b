"""Benchmark: multi-hop retrieval and extractive answers on MetaQA (a 134k-triple movie KB), over HTTP.

    python bench/kbqa.py [--questions 1000] [--seed 7] [--vocabulary as-is user] [--minted] [--discovered]
                         [--data-dir DIR] [--hops 2 3] [--no-path-queries]

kb.txt from ../shared/data/kbqa/metaqa is loaded with `attest load` as N-Triples under its own IRIs (entities
`movie:`, relations `rel:`, both declared in the `prefixes` setting), each entity with an rdfs:label; the
year, votes and rating relations give literals (attributes). With --minted the same KB is minted under
Attest's base instead (entity/{id}, ont: predicates). Two vocabularies, one row each:
- `as-is` (the headline): each relation declared an rdf:Property whose only label is its local name
  ("directed by"): no altLabels, no classes, no domains or ranges; what a user who loads the KB as it is has;
- `user`: the relation labels, altLabels and class names a user would write once for their KB (VOCABULARY,
  CLASSES below), with no question-form words ("when", "who", "which", "what").
A seeded sample of questions per hop count, brackets stripped, goes to POST /context (max_hops = the hop count,
limit 20) and POST /answer (extractive):
- path recall: a whole gold relation path from the topic entity to a gold answer is among /context's relations;
- answer recall: a gold answer is among /context's entities (or, for a value such as a year, its attributes);
- Hits@1: the first answer /answer names is gold;
- path-end recall: a gold answer is the end of one of /context's paths;
- path-query recall: a gold answer is among the rows of one of the paths' SPARQL queries (`paths[].sparql`, run on
  POST /sparql): a path query returns every end its walk reaches, so it holds the path's own end and maybe more;
- agree: the questions whose path recall and path-query recall are both hits or both misses; agree (ends): the
  same against path-end recall (a path whose end is gold but that is not the gold relation path counts there);
- answer-query recall: a gold answer is among the rows of the query /answer returns (`sparql`);
- /context latency p50 / p95 (ms);
- where the gold path drops out, per question type: `link` (the topic entity is not linked), `hop k` (the
  relations hold the gold path's first k-1 steps from the topic but not its k-th; for the last hop, not to a
  gold answer).
Targets (as-is row): path recall >= 0.90 (2-hop), >= 0.80 (3-hop); Hits@1 >= 0.85, >= 0.70; /context p95 < 100 ms.
With --discovered, also the KB as it is (no VOCABULARY) plus the ontology `attest ontology discover` proposes
for it (no LLM review), accepted whole and reloaded: what a user gets without writing any vocabulary.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct, serving  # noqa: E402

KBQA = REPO.parent / "shared" / "data" / "kbqa" / "metaqa"
ENTITY_NS = "https://example.org/metaqa/movie/"
RELATION_NS = "https://example.org/metaqa/relation/"
BASE = "https://w3id.org/attest/"
ONT = BASE + "ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
LITERAL_RELATIONS = {"release_year", "has_imdb_votes", "has_imdb_rating"}
# what a user writes once for their own KB: each relation's label and the other words people use for it
VOCABULARY = {
    "directed_by": ("directed by", ["director", "directors", "directed", "directing"]),
    "written_by": ("written by", ["writer", "writers", "screenwriter", "scriptwriter", "wrote", "written", "co-wrote", "author", "scripted"]),
    "starred_actors": ("starred actors", ["actor", "actors", "acted", "starring", "stars", "starred", "cast", "appeared"]),
    "release_year": ("release year", ["released", "year", "years", "date", "dates"]),
    "in_language": ("in language", ["language", "languages", "spoken"]),
    "has_tags": ("has tags", ["tag", "tags", "described", "topics"]),
    "has_genre": ("has genre", ["genre", "genres", "type", "types", "kind", "category"]),
    "has_imdb_votes": ("has imdb votes", ["votes", "popularity"]),
    "has_imdb_rating": ("has imdb rating", ["rating", "rated"]),
}

# the classes the relations lead from and to, named with the words questions ask for them by ("which films", "who")
CLASSES = {
    "Movie": ("movie", ["film", "films", "movies"]),
    "Person": ("person", ["people"]),
    "Genre": ("genre", ["genres", "type", "types", "kind"]),
    "Language": ("language", ["languages"]),
    "Tag": ("tag", ["tags", "topic", "topics"]),
}
DOMAIN_RANGE = {"directed_by": ("Movie", "Person"), "written_by": ("Movie", "Person"), "starred_actors": ("Movie", "Person"),
                "in_language": ("Movie", "Language"), "has_genre": ("Movie", "Genre"), "has_tags": ("Movie", "Tag")}
SHOW_MISSES = [0]
PATH_QUERIES = [True]
REPORTED = 1000  # the largest sample figures are reported on (the first n of it are the n-question sample)


class Naming:
    """IRIs of the KB's entities and relations, under its own namespaces or minted under Attest's base."""

    def __init__(self, minted: bool) -> None:
        self.minted = minted

    def entity(self, name: str) -> str:
        local = quote(name, safe="").replace("~", "%7E").replace("_", "%5F").replace("%20", "_")
        if not self.minted:
            return ENTITY_NS + local
        local = local.replace("%", "~")
        return f"{BASE}entity/{local if local[0].isalnum() else 'x' + local}"

    def ids(self, name: str) -> set[str]:
        """The ids /context may cite an entity by: its CURIE (or minted id), or its IRI written out."""
        iri = self.entity(name)
        short = iri.removeprefix(f"{BASE}entity/") if self.minted else "movie:" + iri.removeprefix(ENTITY_NS)
        return {iri, short}

    def relation(self, name: str) -> str:
        return (ONT if self.minted else RELATION_NS) + name


def nt_literal(value: str, relation: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    if relation == "release_year" and re.fullmatch(r"\d{4}", value):
        return f'"{escaped}"^^<{XSD}gYear>'
    return f'"{escaped}"'


QUESTION_FORM = frozenset({"when", "who", "whom", "which", "what", "where", "whose"})
assert not QUESTION_FORM & {w for _, alts in [*VOCABULARY.values(), *CLASSES.values()] for w in alts}


def write_kb(naming: Naming, out: Path, vocabulary: str) -> int:
    """kb.txt as N-Triples with a label per entity, and the vocabulary (`as-is` or `user`) as Turtle; returns the
    triple count."""
    labelled: set[str] = set()
    count = 0
    with open(out / "kb.nt", "w", encoding="utf-8") as f:
        for line in open(KBQA / "kb.txt", encoding="utf-8"):
            parts = line.rstrip("\n").split("|")
            if len(parts) != 3:
                continue
            s, p, o = parts
            names = [s] if p in LITERAL_RELATIONS else [s, o]
            for name in names:
                if name not in labelled:
                    labelled.add(name)
                    f.write(f"<{naming.entity(name)}> <http://www.w3.org/2000/01/rdf-schema#label> {nt_literal(name, '')} .\n")
                    count += 1
            obj = nt_literal(o, p) if p in LITERAL_RELATIONS else f"<{naming.entity(o)}>"
            f.write(f"<{naming.entity(s)}> <{naming.relation(p)}> {obj} .\n")
            count += 1
    lines = ["@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .",
             "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> ."]
    if vocabulary == "as-is":  # the local name is the only name a relation has
        for rel in VOCABULARY:
            lines.append(f'<{naming.relation(rel)}> a rdf:Property ; rdfs:label "{rel.replace("_", " ")}" .')
        (out / "vocabulary.ttl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return count
    for name, (label, alts) in CLASSES.items():
        alt = ", ".join(f'"{a}"@en' for a in alts)
        lines.append(f'<{naming.relation(name)}> a rdfs:Class ; rdfs:label "{label}"@en ; skos:altLabel {alt} .')
    for rel, (label, alts) in VOCABULARY.items():
        alt = ", ".join(f'"{a}"@en' for a in alts)
        domain, range_ = DOMAIN_RANGE.get(rel, ("Movie", None))
        lines.append(f'<{naming.relation(rel)}> a rdf:Property ; rdfs:label "{label}"@en ; skos:altLabel {alt} ;'
                     f' rdfs:domain <{naming.relation(domain)}>' + (f' ; rdfs:range <{naming.relation(range_)}> .' if range_ else ' .'))
    (out / "vocabulary.ttl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def questions(hops: int, n: int, seed: int, split: str = "report") -> list[dict]:
    """A seeded sample of n questions; the `tune` split draws only from questions outside the largest reported
    sample (REPORTED questions at this seed), so what is tuned on it is never what is reported."""
    folder = KBQA / f"{hops}-hop"
    rows = zip(open(folder / "qa_test.txt", encoding="utf-8"), open(folder / "qa_test_qtype.txt", encoding="utf-8"),
               open(folder / "qa_test_relpath.txt", encoding="utf-8"))
    out = []
    for qa, qtype, relpath in rows:
        question, answers = qa.rstrip("\n").split("\t")
        topic = re.search(r"\[(.+?)\]", question).group(1)
        out.append({"question": question.replace("[", "").replace("]", ""), "topic": topic,
                    "answers": set(answers.split("|")), "type": qtype.strip(), "path": relpath.strip().split("|")})
    reported = random.Random(seed).sample(range(len(out)), min(REPORTED, len(out)))
    if split == "tune":
        rest = sorted(set(range(len(out))) - set(reported))
        return [out[i] for i in random.Random(seed + 1).sample(rest, min(n, len(rest)))]
    return [out[i] for i in reported[:n]] if n <= REPORTED else random.Random(seed).sample(out, min(n, len(out)))


def path_reached(q: dict, relations: list[dict], names: dict[str, str]) -> int:
    """How many steps of the gold path the relations hold from the topic entity: len(path) when they hold the
    whole path to a gold answer."""
    edges = defaultdict(set)  # (node, relation, forward) -> next nodes
    for r in relations:
        s, p, o = r["triple"]
        rel = p.rsplit("/", 1)[-1].rsplit("#", 1)[-1]
        target = names.get(o) if r["object"] is not None else r["value"]
        edges[(names.get(s), rel, True)].add(target)
        if r["object"] is not None:
            edges[(target, rel, False)].add(names.get(s))
    frontier = {q["topic"]}
    for k, step in enumerate(q["path"]):
        rel, forward = (step[:-4], False) if step.endswith("_inv") else (step, True)
        frontier = {n for node in frontier for n in edges.get((node, rel, forward), ())}
        if k == len(q["path"]) - 1:
            frontier &= q["answers"]
        if not frontier:
            return k
    return len(q["path"])


def attest(*args, config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), *args], cwd=REPO,
                          capture_output=True, text=True, check=True)


def run(args: argparse.Namespace, minted: bool, vocabulary: str) -> dict:
    naming = Naming(minted)
    work = Path(args.data_dir or tempfile.mkdtemp(prefix="attest-kbqa-")) / (("minted" if minted else "own") + "-" + vocabulary)
    work.mkdir(parents=True, exist_ok=True)
    config = work / "attest.yaml"
    config.write_text(f"data_dir: {work / 'data'}\nprefixes:\n  movie: {ENTITY_NS}\n  rel: {RELATION_NS}\n", encoding="utf-8")
    t = time.perf_counter()
    triples = write_kb(naming, work, vocabulary)
    if not (work / "data").exists():
        attest("load", str(work / "kb.nt"), str(work / "vocabulary.ttl"), config=config)
    print(f"{'minted' if minted else 'own IRIs'}, {vocabulary} vocabulary: {triples} triples loaded in {time.perf_counter() - t:.1f} s", flush=True)
    names = {}
    for line in open(KBQA / "kb.txt", encoding="utf-8"):
        for name in (line.split("|")[0], line.rstrip("\n").split("|")[-1]):
            names[naming.entity(name)] = name
    with serving(config) as url, httpx.Client(base_url=url, timeout=60) as client:
        t = time.perf_counter()
        client.post("/context", json={"query": "warm up Kismet", "max_hops": 1})  # builds the label index
        print(f"first /context (label index of the whole KB): {time.perf_counter() - t:.1f} s", flush=True)
        return {hops: measure(client, questions(hops, args.questions, args.seed, args.split), hops, naming, names)
                for hops in args.hops}


def run_discovered(args: argparse.Namespace) -> dict:
    """The KB without the hand vocabulary, plus the discovered ontology accepted whole (issue 27)."""
    naming = Naming(False)
    work = Path(args.data_dir or tempfile.mkdtemp(prefix="attest-kbqa-")) / "discovered"
    work.mkdir(parents=True, exist_ok=True)
    config = work / "attest.yaml"
    if not (work / "ontology").exists():
        shutil.copytree(REPO / "ontology", work / "ontology")
    config.write_text(f"data_dir: {work / 'data'}\nontology_dir: {work / 'ontology'}\nprefixes:\n  movie: {ENTITY_NS}\n"
                      f"  rel: {RELATION_NS}\n", encoding="utf-8")
    write_kb(naming, work, "as-is")  # only kb.nt is loaded: no vocabulary
    if not (work / "data").exists():
        attest("load", str(work / "kb.nt"), config=config)
        t = time.perf_counter()
        found = attest("ontology", "discover", "--no-review", config=config).stdout
        proposal = re.search(r"(discovered-[\w.-]+\.ttl)", found).group(1)
        attest("ontology", "accept", proposal, config=config)
        attest("ontology", "reload", config=config)
        print(f"discovered ontology ({proposal}) proposed, accepted and reloaded in {time.perf_counter() - t:.1f} s")
    names = {}
    for line in open(KBQA / "kb.txt", encoding="utf-8"):
        for name in (line.split("|")[0], line.rstrip("\n").split("|")[-1]):
            names[naming.entity(name)] = name
    with serving(config) as url, httpx.Client(base_url=url, timeout=60) as client:
        client.post("/context", json={"query": "warm up Kismet", "max_hops": 1})
        return {hops: measure(client, questions(hops, args.questions, args.seed, args.split), hops, naming, names)
                for hops in args.hops}


def measure(client: httpx.Client, sample: list[dict], hops: int, naming: Naming, names: dict[str, str]) -> dict:
    per_type = defaultdict(lambda: defaultdict(int))
    latencies = []
    for q in sample:
        t = time.perf_counter()
        response = client.post("/context", json={"query": q["question"], "max_hops": hops, "limit": 20})
        latencies.append((time.perf_counter() - t) * 1000)
        response.raise_for_status()
        body = response.json()
        answered = client.post("/answer", json={"question": q["question"], "max_hops": hops, "limit": 20,
                                               "mode": "extractive"}).json()
        labels = {e["label"] for e in body["entities"]} | {r["value"] for r in body["relations"] if r["value"]}
        first = answered["answers"][0]["label"] if answered.get("answers") else None
        reached = path_reached(q, body["relations"], names)
        found = reached == len(q["path"])
        linked = bool(naming.ids(q["topic"]) & {e for link in body["links"] for e in link["entities"]})
        by_query = bool(PATH_QUERIES[0]) and any(query_ends(client, p["sparql"], names) & q["answers"] for p in body["paths"])
        by_answer = bool(PATH_QUERIES[0]) and bool(answered.get("sparql")) and bool(
            query_ends(client, answered["sparql"], names) & q["answers"])
        if SHOW_MISSES[0] > 0 and (first not in q["answers"] or not found):
            SHOW_MISSES[0] -= 1
            kinds = [" > ".join(next(r["predicate"] for r in body["relations"] if r["id"] == rid) for rid in p["relations"])
                     for p in body["paths"][:3]]
            print(f"miss ({'answer' if found else 'path'}): {q['question']!r} gold {'|'.join(q['path'])}; answered {first!r} by {kinds}; "
                  f"links {[(link['text'], link['score']) for link in body['links']]}")
        for key in (q["type"], "all"):
            row = per_type[key]
            row["n"] += 1
            row["path"] += found
            row["answer"] += bool(labels & q["answers"])
            row["hits1"] += first in q["answers"]
            row["path_end"] += any((p["label"] if p["end"] else p["value"]) in q["answers"] for p in body["paths"])
            row["path_query"] += by_query
            row["agree"] += by_query == found
            row["agree_ends"] += by_query == any((p["label"] if p["end"] else p["value"]) in q["answers"] for p in body["paths"])
            row["answer_query"] += by_answer
            if not found:  # where the gold path drops out
                row["drop link" if not linked else f"drop hop {reached + 1}"] += 1
    return {"types": per_type, "p50": statistics.median(latencies), "p95": pct(latencies, 0.95)}


def query_ends(client: httpx.Client, query: str, names: dict[str, str]) -> set[str]:
    """The ?answer column of a query run on /sparql, as KB names (entities) or lexical forms (values)."""
    response = client.post("/sparql", data={"query": query}, headers={"Accept": "application/sparql-results+json"})
    response.raise_for_status()
    return {names.get(b["answer"]["value"]) if b["answer"]["type"] == "uri" else b["answer"]["value"]
            for b in response.json()["results"]["bindings"] if "answer" in b}


def report(label: str, results: dict) -> None:
    for hops, r in results.items():
        print(f"\n{label}, {hops}-hop: /context p50 {r['p50']:.1f} ms, p95 {r['p95']:.1f} ms")
        drops = ["link"] + [f"hop {k}" for k in range(1, hops + 1)]
        extra = (" path-end recall | path-query recall | agree | agree (ends) | answer-query recall |"
                 if PATH_QUERIES[0] else "")
        print("| question type | n | path recall | answer recall | Hits@1 | gold path lost at: " + " / ".join(drops) + f" |{extra}")
        print("|---|---|---|---|---|---|" + "---|---|---|---|---|" * bool(extra))
        for name, row in sorted(r["types"].items(), key=lambda kv: (kv[0] == "all", kv[0])):
            n = row["n"]
            lost = " / ".join(str(row[f"drop {d}"]) for d in drops)
            more = "".join(f" {row[k] / n:.3f} |" for k in ("path_end", "path_query", "agree", "agree_ends", "answer_query")) if extra else ""
            print(f"| {'**all**' if name == 'all' else name} | {n} | {row['path'] / n:.3f} | {row['answer'] / n:.3f} | {row['hits1'] / n:.3f} | {lost} |{more}")


def summary(rows: dict) -> None:
    """One line per vocabulary and hop count: the headline figures."""
    print("\n| vocabulary | hops | path recall | answer recall | Hits@1 | /context p50 | /context p95 |\n|---|---|---|---|---|---|---|")
    for label, results in rows.items():
        for hops, r in results.items():
            a = r["types"]["all"]
            n = a["n"]
            print(f"| {label} | {hops} | {a['path'] / n:.3f} | {a['answer'] / n:.3f} | {a['hits1'] / n:.3f} | {r['p50']:.0f} ms | {r['p95']:.0f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=1000, help="questions sampled per hop count")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hops", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--vocabulary", nargs="+", choices=["as-is", "user"], default=["as-is", "user"],
                        help="the rows: as-is (labels from local names only, the headline) and a user's vocabulary")
    parser.add_argument("--split", choices=["report", "tune"], default="report",
                        help="tune: questions outside the reported sample, for tuning without reporting")
    parser.add_argument("--minted", action="store_true", help="also run with the KB minted under Attest's base")
    parser.add_argument("--discovered", action="store_true",
                        help="also run with no vocabulary but the discovered ontology accepted whole")
    parser.add_argument("--data-dir", help="keep the loaded stores here (reused when present)")
    parser.add_argument("--show-misses", type=int, default=0, help="print this many questions whose first answer is wrong")
    parser.add_argument("--no-path-queries", action="store_true", help="skip running the paths' SPARQL on /sparql")
    args = parser.parse_args()
    SHOW_MISSES[0] = args.show_misses
    PATH_QUERIES[0] = not args.no_path_queries
    if not KBQA.is_dir():
        raise SystemExit(f"MetaQA not found at {KBQA} (../shared/data/kbqa/metaqa beside the repository)")
    print(f"MetaQA from {KBQA.relative_to(REPO.parent)}; {args.questions} questions per hop count, seed {args.seed}")
    rows = {}
    for vocabulary in args.vocabulary:
        for minted in (False, True) if args.minted else (False,):
            label = f"{vocabulary}, {'minted under Attest' + chr(39) + 's base' if minted else 'own IRIs'}"
            rows[label] = run(args, minted, vocabulary)
            report(label, rows[label])
    if args.discovered:
        rows["as is + discovered ontology"] = run_discovered(args)
        report("as is + discovered ontology", rows["as is + discovered ontology"])
    summary(rows)


if __name__ == "__main__":
    main()
