"""Replay: the question's words against every declared property, one reading at a time and all at once.

    python bench/term_matching.py --data-dir DIR [--set 2wiki|hotpotqa] [--rounds 3]

DIR is a `bench/docqa.py --data-dir` folder. For each of context_profile.py's 100 queries of the set and the 100
HotpotQA questions, the content words are matched against each declared property's words both ways (what
`PathSearch.__init__` does), with nothing remembered (every word new): by `term_matches` on each reading, then by
`term_matches_many` on all of them. Prints the thread CPU per question of each and whether every match is the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_profile import queries  # noqa: E402
from docqa import DOCQA  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True, type=Path, help="a bench/docqa.py --data-dir folder")
    parser.add_argument("--set", default="2wiki", choices=["hotpotqa", "2wiki"])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from attest.answer.inference import reasoner_inference
    from attest.answer.many_words import term_matches_many
    from attest.answer.paths import _local
    from attest.answer.predicates import describing_words, question_terms, term_matches
    from attest.answer.service import AnswerService
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    settings = load_settings(args.data_dir / args.set / "attest.yaml", ontology_dir=REPO / "ontology",
                             shapes_dir=REPO / "shapes", queries_dir=REPO / "queries", llm_base_url="http://127.0.0.1:9/v1")
    store = open_store(settings, read_only=True)
    service = AnswerService(store, Iris(settings.base_iri), settings,
                            reasoner_inference(store, Iris(settings.base_iri), settings), owner=store)
    lookup = service.lookup
    declared = lookup.properties_in_use(lookup.label_index().properties)
    texts = lookup.property_texts(declared)
    many = [describing_words(texts[p], _local(p), not forward) for p in declared for forward in (True, False)]
    texts_of = queries(args.set, 100, 7) + [q["question"] for q in
                                            json.loads((DOCQA / "hotpotqa.json").read_text(encoding="utf-8"))[:100]]
    differ = 0
    one, all_at_once = [], []
    for _ in range(args.rounds):
        t_one = t_all = 0.0
        for text in texts_of:
            terms = question_terms(text, [])
            for words in many:
                words.scored.clear()
            t = time.thread_time()
            expected = [term_matches(terms, words) for words in many]
            t_one += time.thread_time() - t
            for words in many:
                words.scored.clear()
            t = time.thread_time()
            found = term_matches_many(terms, many)
            t_all += time.thread_time() - t
            differ += found != expected
        one.append(t_one * 1000 / len(texts_of))
        all_at_once.append(t_all * 1000 / len(texts_of))
    store.close()
    print(f"{len(texts_of)} questions x {len(many)} property readings, nothing remembered; CPU ms a question, "
          f"one reading at a time: {', '.join(f'{x:.2f}' for x in one)}; all at once: "
          f"{', '.join(f'{x:.2f}' for x in all_at_once)}; questions whose matches differ: {differ}")


if __name__ == "__main__":
    main()
