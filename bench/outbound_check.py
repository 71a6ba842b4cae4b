"""Benchmark: cost of the SERVICE/LOAD check (attest/sparql/outbound.py) that every query and update passes.

    python bench/outbound_check.py [--rounds 2000]

Two cases: the packaged named queries (queries/*.rq, none mentions service, load or define: one regex search), and
a 2.4 KB query whose IRIs say "service" (the whole text is lexed, as for any query that mentions the words).
"""

from __future__ import annotations

import argparse
import timeit
from pathlib import Path

from attest.sparql.outbound import check_outbound, mentions_fetch_words

REPO = Path(__file__).resolve().parent.parent
MENTIONING = ("PREFIX ont: <https://w3id.org/attest/ontology#>\n"
              "SELECT ?s ?o WHERE { ?s ont:uses ?o . ?o <http://example.org/service> ?x }\n") * 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    rounds = parser.parse_args().rounds
    for path in sorted((REPO / "queries").glob("*.rq")):
        text = path.read_text(encoding="utf-8")
        lexed = "lexed" if mentions_fetch_words(text) else "substring search only"
        seconds = timeit.timeit(lambda: check_outbound(text, []), number=rounds) / rounds
        print(f"queries/{path.name} ({len(text)} chars, {lexed}): {seconds * 1e6:.1f} us per check")
    seconds = timeit.timeit(lambda: check_outbound(MENTIONING, []), number=rounds) / rounds
    print(f"a {len(MENTIONING)}-char query whose IRIs say 'service' (lexed): {seconds * 1e6:.1f} us per check")


if __name__ == "__main__":
    main()
