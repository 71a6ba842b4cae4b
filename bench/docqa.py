"""Benchmark: multi-hop passage retrieval and extractive answers over a pooled document corpus, over HTTP.

    python bench/docqa.py [--set hotpotqa] [--questions 100] [--data-dir DIR] [--show-misses N] [--dump FILE]
    python bench/docqa.py --set 2wiki [--data-dir DIR]    # 6,119 paragraphs, no questions: ingest and latency
    python bench/docqa.py --corpus-file C --questions-file Q  # a set kept outside the repo (held-out)

--questions-file takes HotpotQA's format or MuSiQue's (as HippoRAG's `musique*.json`: `paragraphs` flagged
`is_supporting`, `answer` and `answer_aliases`, any of which counts as the gold answer); --corpus-file a list of
{"title", "text"} or a mapping title -> sentences.

Every paragraph of ../shared/data/docqa/<set>_corpus.json is written as one Markdown file (its title as a
heading) and the folder is ingested as a user would: `attest ingest --offline FOLDER`. A served instance
(`attest serve`) then gets each question at POST /context (limit 20, max_hops 2) and POST /answer
(extractive), as in the HippoRAG paper's setting:
- R@k: the share of a question's supporting paragraphs (the titles in `supporting_facts`) among the first k
  distinct documents of /context's `sources`;
- the same for plain BM25 over the same paragraphs in the same run (SQLite FTS5 in its own database, the
  paragraph's title and text indexed, the question's words OR-ed);
- answer hit: the gold answer (case, punctuation and diacritics folded) is in the first answer /answer names
  (its first `answers` entry, or else the first sentence of its text), as whole words ("no" is not in "nothing");
  how many questions named an answer (`answers` not empty) and the share of those that are right (precision);
- /context and /answer (extractive) p50 / p95 (ms), ingest documents/s, and on a question naming the most
  mentioned entity /context and the named query `neighbours` about it (slowest of 5).
Without questions (2wiki) the latency is measured on queries made of each of 100 seeded paragraphs' first
sentence.
Targets (issue 23): R@2 and R@5 >= 10 points above BM25; answer hit >= 40%; /context p95 < 100 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct, serving, write_section  # noqa: E402

DOCQA = REPO.parent / "shared" / "data" / "docqa"
WORD = re.compile(r"\w+", re.UNICODE)


def fold(text: str) -> str:
    """Case, punctuation and diacritics folded, words separated by one space."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def load_corpus(path: Path) -> list[tuple[str, str]]:
    """(title, text) of every paragraph."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(raw, dict):
        return [(title, "".join(sentences).strip()) for title, sentences in raw.items()]
    return [(row["title"], row["text"].strip()) for row in raw]


def write_folder(corpus: list[tuple[str, str]], folder: Path) -> dict[str, str]:
    """One Markdown file per paragraph; returns file stem -> title."""
    folder.mkdir(parents=True, exist_ok=True)
    stems = {}
    for i, (title, text) in enumerate(corpus):
        stem = f"p{i:05d}"
        (folder / f"{stem}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
        stems[stem] = title
    return stems


class Bm25:
    """Plain BM25 over the paragraphs (SQLite FTS5, its own in-memory database)."""

    def __init__(self, corpus: list[tuple[str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE p USING fts5(title UNINDEXED, body, tokenize='unicode61 remove_diacritics 2')")
        self.db.executemany("INSERT INTO p VALUES (?, ?)", [(t, f"{t}\n{x}") for t, x in corpus])

    def search(self, question: str, k: int) -> list[str]:
        words = list(dict.fromkeys(w.casefold() for w in WORD.findall(question)))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        return [r[0] for r in self.db.execute("SELECT title FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?", (match, k))]


def load_questions(path: Path, limit: int) -> list[dict]:
    """Each question with its supporting titles (`gold`) and its accepted answers, from HotpotQA's or MuSiQue's format."""
    questions = []
    for q in json.loads(path.read_text(encoding="utf-8"))[:limit]:
        if "supporting_facts" in q:
            gold, answers = {title for title, _ in q["supporting_facts"]}, [q["answer"]]
        else:
            gold = {p["title"] for p in q["paragraphs"] if p["is_supporting"]}
            answers = [q["answer"], *q.get("answer_aliases", [])]
        questions.append({"question": q["question"], "gold": gold, "answers": answers})
    return questions


def recall(retrieved: list[str], gold: set[str], k: int) -> float:
    return len(set(retrieved[:k]) & gold) / len(gold)


def first_answer(body: dict) -> str:
    if body.get("answers"):
        a = body["answers"][0]
        return a.get("value") or a["label"]
    text = re.sub(r"<<[^>]*>>", "", body.get("text", ""))
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def attest(*args, config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), *args], cwd=REPO,
                          capture_output=True, text=True, check=True)


def ingest(work: Path, corpus: list[tuple[str, str]]) -> tuple[dict[str, str], float | None]:
    """The corpus written and ingested offline (reused when the store exists); (stem -> title, docs/s or None)."""
    config = work / "attest.yaml"
    config.write_text(f"data_dir: {work / 'data'}\n", encoding="utf-8")
    stems = write_folder(corpus, work / "docs")
    if (work / "data").exists():
        return stems, None
    t = time.perf_counter()
    attest("ingest", "--offline", str(work / "docs"), config=config)
    return stems, len(corpus) / (time.perf_counter() - t)


def title_of(document: str | None, stems: dict[str, str]) -> str | None:
    """The paragraph title of a document id (`<slug of the file stem>-<hash>`)."""
    return stems.get(document.rsplit("-", 1)[0]) if document else None


def documents(sources: list[dict], stems: dict[str, str]) -> list[str]:
    return list(dict.fromkeys(t for s in sources if (t := title_of(s["document"], stems))))


def measure(client: httpx.Client, questions: list[dict], corpus, stems, show_misses: int, dump: Path | None = None) -> dict:
    bm25 = Bm25(corpus)
    rows = {"attest2": 0.0, "attest5": 0.0, "bm2": 0.0, "bm5": 0.0, "hits": 0, "named": 0, "named_hits": 0}
    latencies, answer_latencies, dumped = [], [], []
    for q in questions:
        gold = q["gold"]
        t = time.perf_counter()
        response = client.post("/context", json={"query": q["question"], "limit": 20, "max_hops": 2})
        latencies.append((time.perf_counter() - t) * 1000)
        response.raise_for_status()
        got = documents(response.json()["sources"], stems)
        base = bm25.search(q["question"], 5)
        t = time.perf_counter()
        answered = client.post("/answer", json={"question": q["question"], "limit": 20, "max_hops": 2,
                                               "mode": "extractive"})
        answer_latencies.append((time.perf_counter() - t) * 1000)
        answered.raise_for_status()
        body = answered.json()
        first = first_answer(body)
        hit = any(fold(a) and f" {fold(a)} " in f" {fold(first)} " for a in q["answers"])  # whole words
        rows["attest2"] += recall(got, gold, 2)
        rows["attest5"] += recall(got, gold, 5)
        rows["bm2"] += recall(base, gold, 2)
        rows["bm5"] += recall(base, gold, 5)
        rows["hits"] += hit
        rows["named"] += bool(body.get("answers"))
        rows["named_hits"] += bool(body.get("answers")) and hit
        dumped.append({"question": q["question"], "gold": q["answers"], "named": bool(body.get("answers")),
                       "first": first, "hit": hit, "text": body.get("text", "")})
        if show_misses and (recall(got, gold, 5) < 1 or not hit):
            show_misses -= 1
            print(f"- {q['question']!r} gold {q['answers'][0]!r} {sorted(gold)}\n  sources {got[:5]}\n  bm25 {base}\n"
                  f"  answered {first[:160]!r}")
    if dump:
        dump.write_text("".join(json.dumps(d) + "\n" for d in dumped), encoding="utf-8")
    n = len(questions)
    named, named_hits = rows.pop("named"), rows.pop("named_hits")
    return {"n": n, **{k: v / n for k, v in rows.items()}, "named": named, "named_hits": named_hits, "p50": statistics.median(latencies),
            "p95": pct(latencies, 0.95), "answer_p50": statistics.median(answer_latencies),
            "answer_p95": pct(answer_latencies, 0.95)}


def hub_latency(client: httpx.Client, work: Path) -> tuple[str, int, float, float]:
    """/context on a question naming the entity mentioned in the most chunks, and the named query `neighbours` about it:
    (its label, chunks, slowest of 5 ms, slowest of 5 ms)."""
    db = sqlite3.connect(work / "data" / "fulltext.sqlite")
    entity, chunks = db.execute("SELECT entity, count(*) FROM mentions GROUP BY entity ORDER BY 2 DESC LIMIT 1").fetchone()
    label = db.execute("SELECT label FROM labels WHERE entity = ? AND label != '' LIMIT 1", (entity,)).fetchone()[0]
    db.close()
    times, neighbours = [], []
    for _ in range(5):
        t = time.perf_counter()
        client.post("/context", json={"query": f"What is known about {label}?", "limit": 20, "max_hops": 2}).raise_for_status()
        times.append((time.perf_counter() - t) * 1000)
    for _ in range(5):  # the named query about it (its first page)
        t = time.perf_counter()
        client.get("/queries/neighbours", params={"entity": entity.rsplit("/", 1)[-1]}).raise_for_status()
        neighbours.append((time.perf_counter() - t) * 1000)
    return label, chunks, max(times), max(neighbours)


def latency_only(client: httpx.Client, corpus, seed: int) -> dict:
    sample = random.Random(seed).sample(corpus, min(100, len(corpus)))
    latencies, answer_latencies = [], []
    for title, text in sample:
        question = re.split(r"(?<=[.!?])\s+", text, maxsplit=1)[0][:300]
        t = time.perf_counter()
        client.post("/context", json={"query": question, "limit": 20, "max_hops": 2}).raise_for_status()
        latencies.append((time.perf_counter() - t) * 1000)
    for title, text in sample:  # then /answer (extractive) on the same queries, after their lookups are remembered
        question = re.split(r"(?<=[.!?])\s+", text, maxsplit=1)[0][:300]
        t = time.perf_counter()
        client.post("/answer", json={"question": question, "limit": 20, "max_hops": 2, "mode": "extractive"}
                    ).raise_for_status()
        answer_latencies.append((time.perf_counter() - t) * 1000)
    return {"n": len(sample), "p50": statistics.median(latencies), "p95": pct(latencies, 0.95),
            "answer_p50": statistics.median(answer_latencies), "answer_p95": pct(answer_latencies, 0.95)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="hotpotqa", choices=["hotpotqa", "2wiki"])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", help="keep the ingested store here (reused when present)")
    parser.add_argument("--show-misses", type=int, default=0)
    parser.add_argument("--corpus-file", type=Path, help="a corpus kept outside the repo (with --questions-file)")
    parser.add_argument("--questions-file", type=Path, help="its questions, HotpotQA's or MuSiQue's format")
    parser.add_argument("--dump", type=Path, help="write each question's answer (JSON lines) to this file")
    parser.add_argument("--record", help="write the figures into bench/RESULTS.md under this title")
    args = parser.parse_args()
    if bool(args.corpus_file) != bool(args.questions_file):
        parser.error("--corpus-file and --questions-file go together")
    name = args.corpus_file.stem if args.corpus_file else args.set
    corpus = load_corpus(args.corpus_file or DOCQA / f"{args.set}_corpus.json")
    work = Path(args.data_dir or tempfile.mkdtemp(prefix="attest-docqa-")) / name
    work.mkdir(parents=True, exist_ok=True)
    stems, rate = ingest(work, corpus)
    lines = [f"{len(corpus)} paragraphs of {name}.json, ingested offline"
             + (f" at {rate:.1f} documents/s" if rate else " (store reused; ingest not timed)")]
    with serving(work / "attest.yaml") as url, httpx.Client(base_url=url, timeout=120) as client:
        client.post("/context", json={"query": "warm up", "limit": 20})  # builds the label index
        if args.questions_file or args.set == "hotpotqa":
            questions = load_questions(args.questions_file or DOCQA / "hotpotqa.json", args.questions)
            r = measure(client, questions, corpus, stems, args.show_misses, args.dump)
            lines += ["", "| retriever | R@2 | R@5 |", "|---|---|---|",
                      f"| Attest `/context` sources | {100 * r['attest2']:.1f} | {100 * r['attest5']:.1f} |",
                      f"| plain BM25 (FTS5), same paragraphs | {100 * r['bm2']:.1f} | {100 * r['bm5']:.1f} |", "",
                      (f"{r['n']} questions; extractive answer hit (first answer names the gold): {100 * r['hits']:.0f}%; "
                       f"/context p50 {r['p50']:.1f} ms, p95 {r['p95']:.1f} ms; /answer p50 {r['answer_p50']:.1f} ms, "
                       f"p95 {r['answer_p95']:.1f} ms"), "",
                      (f"named an answer on {r['named']} questions ({r['named_hits']} right: precision "
                       f"{100 * r['named_hits'] / max(r['named'], 1):.0f}%); named none on {r['n'] - r['named']}")]
        else:
            r = latency_only(client, corpus, args.seed)
            lines.append(f"/context on {r['n']} queries (each a seeded paragraph's first sentence): "
                         f"p50 {r['p50']:.1f} ms, p95 {r['p95']:.1f} ms; /answer (extractive) on the same queries "
                         f"after them: p50 {r['answer_p50']:.1f} ms, p95 {r['answer_p95']:.1f} ms")
        label, chunks, slowest, neighbours = hub_latency(client, work)
        lines.append(f"a question naming the most mentioned entity ({label!r}, in {chunks} chunks): /context at most "
                     f"{slowest:.1f} ms over 5 runs; the named query `neighbours` about it at most {neighbours:.1f} ms")
    text = "\n".join(lines)
    print(text)
    if args.record:
        write_section(args.record, text, "python bench/docqa.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
