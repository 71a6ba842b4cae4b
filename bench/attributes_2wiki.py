"""Literal attributes (dates as written) on a seeded sample of the 2Wiki paragraphs, offline: how many are read, per
attribute, against how many paragraphs state a birth, death, founding or publication with a year; and a random
20 of them with their sentence, for a reader to judge (the set has no gold for them).

    python bench/attributes_2wiki.py [--sample 1000] [--show 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from attest.extract.ontology_terms import load_terms  # noqa: E402
from attest.extract.rules import RuleExtractor  # noqa: E402
from attest.extract.validate import ExtractionValidator  # noqa: E402
from attest.ingest.chunk import chunk_text, clean  # noqa: E402

CORPUS = REPO.parent / "shared" / "data" / "docqa" / "2wiki_corpus.json"
# a rough denominator: a life, founding or publication word with a year of 3-4 digits after it, a year range in
# parentheses, or "is a 1975 ..."
STATED = re.compile(r"(?:\b(?:born|died|founded|established|published|released)\b.{0,80}?\b\d{3,4}\b"
                    r"|\(\s*\d{3,4}\s*[-–]|\bis\s+an?\s+\d{4}\b)", re.IGNORECASE | re.DOTALL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    paragraphs = json.loads(CORPUS.read_text(encoding="utf-8"))
    sample = random.Random(args.seed).sample(paragraphs, min(args.sample, len(paragraphs)))
    terms = load_terms(REPO / "ontology")
    extractor, validator = RuleExtractor(terms), ExtractionValidator(terms)
    found: list[tuple[str, str, str, str]] = []
    per = Counter()
    with_any = stated = 0
    start = time.perf_counter()
    for p in sample:
        stated += bool(STATED.search(p["text"]))
        got = 0
        for chunk in chunk_text("bench", clean(f"# {p['title']}\n\n{p['text']}\n", markdown=True)):
            for a in validator.validate(extractor.extract(chunk.text)).accepted.attributes:
                per[a.predicate] += 1
                got += 1
                sentence = chunk.text[a.start:a.end] if a.start is not None and a.end is not None else ""
                found.append((a.subject, a.predicate, a.value, " ".join(sentence.split())[:160]))
        with_any += bool(got)
    seconds = time.perf_counter() - start
    print(f"{len(sample)} paragraphs ({seconds:.1f} s): {stated} state a life, founding or publication with a year "
          f"(rough pattern); {with_any} got at least one attribute; {len(found)} attributes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(per.items())))
    for subject, predicate, value, sentence in random.Random(args.seed).sample(found, min(args.show, len(found))):
        print(f"- {subject} | {predicate} | {value} | {sentence}")


if __name__ == "__main__":
    main()
