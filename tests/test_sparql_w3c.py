"""The W3C SPARQL 1.1 Protocol and Graph Store Protocol manifests, run against the live server."""

from __future__ import annotations

from tests.w3c_protocol import Endpoints, http_reset, run_all

# passing now: protocol 34/34, GSP indirect 9/9, GSP direct 4/4; a regression lowers the count
EXPECTED_PASSES = 47


def test_w3c_protocol_and_graph_store_manifests(live_server, shared_data):
    endpoints = Endpoints(live_server.url)
    results = run_all(shared_data / "w3c-sparql11-tests", endpoints, http_reset(endpoints))
    outcomes = [o for manifest in results.values() for o in manifest]
    failures = [f"{o.name}: {o.reason}" for o in outcomes if not o.passed]
    passed = len(outcomes) - len(failures)
    assert len(outcomes) == 47
    assert passed >= EXPECTED_PASSES, "\n".join(failures)
