"""Benchmark guard: a digest of the offline rule extractor's full output on a fixed sample, and its CPU time.

    python bench/extract_digest.py [--generated 300] [--wiki 300] [--rounds 1] [--dump FILE] [--profile N]

Speed work on attest/extract/ must not change what it extracts. This runs RuleExtractor.extract on the chunks (the
ingest pipeline's cleaning and chunking) of a fixed sample: --generated documents of bench/ingest.py's generator
(seed 42, 6 paragraphs, as bench/ingest_prose.py --generated writes them), every 20th of the first 20 x --wiki
paragraphs of ../shared/data/docqa/2wiki_corpus.json (titled Markdown) and the repo's demo corpus. It runs twice:
once with no known entities (a fresh store) and once seeded with every (name, type) the first pass extracted (a
store that holds them: the known-label rulers and the near-match lookup take part). Each extraction is dumped in
full (entities with spans, types and confidences; relations with predicates, confidences, spans and valid times;
refused sentences) and the SHA-256 of those lines is printed per sample and pass; the same digest before and after
a change means the same output. --dump writes the lines to compare where a digest differs. --profile N prints the
N costliest functions (cProfile, cumulative) of the first pass. The CPU time per chunk is printed per pass; on a
shared machine it moves with the load: --rounds R runs the first pass R times and prints the fastest round too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from attest.extract.ontology_terms import load_terms  # noqa: E402
from attest.ingest.chunk import chunk_text, clean  # noqa: E402
from attest.ingest.load import collect_files, load_path  # noqa: E402
from bench.ingest import make_document  # noqa: E402

CORPUS = REPO.parent / "shared" / "data" / "docqa" / "2wiki_corpus.json"


def sample_chunks(generated: int, wiki: int) -> dict[str, list[str]]:
    """Chunk texts per sample, as the ingest pipeline cuts them."""
    docs: dict[str, list[tuple[str, bool]]] = {"generated": [], "2wiki": [], "demo": []}
    rng = random.Random(42)
    docs["generated"] = [(make_document(rng, i, 6), True) for i in range(generated)]
    if wiki:
        paragraphs = json.loads(CORPUS.read_text(encoding="utf-8"))[: 20 * wiki: 20]
        docs["2wiki"] = [(f"# {p['title']}\n\n{p['text']}\n", True) for p in paragraphs]
    for path, source in collect_files([REPO / "demo" / "corpus"]):
        loaded = load_path(path, source=source, max_bytes=10_000_000)
        docs["demo"].append((loaded.text, loaded.media_type == "text/markdown"))
    return {name: [c.text for text, md in texts for c in chunk_text("digest", clean(text, markdown=md))]
            for name, texts in docs.items()}


def run(extractor, chunks: dict[str, list[str]], lines_out: list[str]) -> tuple[dict[str, str], float, list]:
    digests, known, cpu = {}, [], 0.0
    for name, texts in chunks.items():
        digest = hashlib.sha256()
        for text in texts:
            start = time.process_time()
            extraction = extractor.extract(text)
            cpu += time.process_time() - start
            line = json.dumps(extraction.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
            digest.update(line.encode() + b"\n")
            lines_out.append(f"{name}\t{line}")
            known += [(e.name, e.type) for e in extraction.entities]
        digests[name] = digest.hexdigest()[:16]
    return digests, cpu, known


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generated", type=int, default=300)
    parser.add_argument("--wiki", type=int, default=300)
    parser.add_argument("--dump", type=Path, help="write every extraction, one JSON line each")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions of the first pass")
    parser.add_argument("--rounds", type=int, default=1, help="times the first pass runs (its fastest is printed)")
    args = parser.parse_args()

    from attest.extract.rules import RuleExtractor

    terms = load_terms(REPO / "ontology")
    chunks = sample_chunks(args.generated, args.wiki)
    print("chunks: " + ", ".join(f"{name} {len(texts)}" for name, texts in chunks.items()))
    lines: list[str] = []
    fresh = RuleExtractor(terms)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
    digests, cpu, known = run(fresh, chunks, lines)
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
    total = sum(len(texts) for texts in chunks.values())
    print(f"pass 1 (no known entities): {digests}  CPU {cpu:.2f} s = {1000 * cpu / total:.2f} ms/chunk")
    if args.rounds > 1:
        rounds = [cpu] + [run(fresh, chunks, [])[1] for _ in range(args.rounds - 1)]
        print(f"pass 1, fastest of {args.rounds} rounds: CPU {min(rounds):.2f} s = {1000 * min(rounds) / total:.2f} ms/chunk")
    seeded = RuleExtractor(terms, sorted(set(known)))
    digests2, cpu2, _ = run(seeded, chunks, lines)
    print(f"pass 2 ({len(set(known))} known entities): {digests2}  CPU {cpu2:.2f} s = {1000 * cpu2 / total:.2f} ms/chunk")
    overall = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    print(f"digest: {overall}")
    if args.dump:
        args.dump.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
