"""Valid time from text on real prose: how many relations the rule extractor dates on Re-DocRED, each dated one printed
with its sentence for a reader to judge, and the time to read dates from a megabyte-long run-on sentence.

    nice -n 10 python bench/valid_time.py [--docs 500] [--out dated.tsv]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from docred import load_docs  # noqa: E402

from attest.extract.dates import DatedText  # noqa: E402
from attest.extract.ontology_terms import load_terms  # noqa: E402
from attest.extract.rules import RuleExtractor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500, help="Re-DocRED documents to read (file order)")
    parser.add_argument("--out", type=Path, help="write every dated relation with its sentence here (TSV)")
    args = parser.parse_args()
    docs = load_docs()[:args.docs]
    rules = RuleExtractor(load_terms(REPO / "ontology"))
    total = dated = 0
    rows = []
    start = time.perf_counter()
    for doc in docs:
        extraction = rules.extract(doc.text)
        for r in extraction.relations:
            total += 1
            if r.valid_from or r.valid_to:
                dated += 1
                sentence = next((doc.text[a:b] for a, b in doc.sentence_spans
                                 if r.subject in doc.text[a:b] and r.object in doc.text[a:b]), "")
                rows.append(f"{doc.title}\t{r.subject}\t{r.predicate}\t{r.object}\t{r.valid_from}\t{r.valid_to}\t{sentence}")
    elapsed = time.perf_counter() - start
    print(f"documents: {len(docs)}  relations: {total}  dated: {dated} ({dated / max(total, 1):.1%})  "
          f"rule extraction: {elapsed:.1f} s")
    if args.out:
        args.out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    else:
        print("\n".join(rows))
    run_on = "Alice Smith worked for Contoso from 2001 to 2005 and in March 2020 joined Fabrikam, " * 12_000
    t = time.perf_counter()
    found = DatedText(run_on[:1_000_000]).expressions
    print(f"1 MB run-on sentence: {len(found)} date expressions read in {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
