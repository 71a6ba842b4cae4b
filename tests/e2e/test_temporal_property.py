"""Property: whatever the order of ingests, replacements and deletes, graph/validity equals a recomputation from the
document graphs that remain (attest/ingest/validity.py rebuild)."""

from __future__ import annotations


from hypothesis import HealthCheck, given, settings, strategies as st

from attest.ingest import validity
from tests.fakes.openai_server import Reply
from tests.ingest_support import chunk_of, llm_pipeline
from tests.temporal_support import ingest_text, intervals, person_at

ORGS = ("Contoso", "Fabrikam", "Northwind")
DATES = (None, "2019-01-01", "2021-06-01", "2023-03-15")
# a statement: (predicate, organization, valid_from, valid_to); worksFor changes over time, memberOf does not
STATEMENTS = [(p, org, start, end) for p in ("worksFor", "memberOf") for org in ORGS for start in DATES
              for end in (None, "2024-12-31")]
OPS = st.lists(st.tuples(st.sampled_from(["put", "delete"]), st.integers(0, 3), st.integers(0, len(STATEMENTS) - 1)),
               min_size=1, max_size=8)


def _reply(request) -> Reply:
    """The extraction of a text 'Statement N.': statement N as a dated fact of Alice Smith."""
    text = chunk_of(request)
    n = int(text.split("Statement ", 1)[1].split(".", 1)[0])
    predicate, org, start, end = STATEMENTS[n]
    return Reply(person_at("Alice Smith", org, predicate, valid_from=start, valid_to=end))


def test_any_order_of_writes_gives_the_recomputed_intervals(store, llm_settings, iris, fake_llm):
    fake_llm.respond_with(_reply)
    pipeline = llm_pipeline(store, llm_settings)

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(OPS)
    def run(ops):
        held: dict[int, str] = {}  # slot -> document id
        try:
            for op, slot, n in ops:
                if op == "put":
                    held[slot] = ingest_text(pipeline, f"slot{slot}.txt", f"Statement {n}.").doc_id
                elif slot in held:
                    assert pipeline.delete(held.pop(slot))
                held_now = {(q.subject, q.predicate, q.object) for q in store.quads(iris.validity_graph)}
                assert held_now == {(q.subject, q.predicate, q.object) for q in validity.recomputed(store, iris)}, ops
        finally:
            for doc_id in held.values():
                pipeline.delete(doc_id)
        assert intervals(store, iris) == {}

    run()
