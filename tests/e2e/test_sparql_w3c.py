"""The W3C SPARQL 1.1 Protocol and Graph Store Protocol manifests, run against the live server."""

from __future__ import annotations

import pytest

from tests.remote_support import store_kind_under_test
from tests.w3c_protocol import Endpoints, http_reset, run_all

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

# passing now: protocol 34/34, GSP indirect 9/9, GSP direct 4/4; a regression lowers the count
EXPECTED_PASSES = 47
# Virtuoso's default graph is always the union of all its graphs: it has no default graph of its own for
# PUT /store?default to replace (CLEAR DEFAULT is refused, SP031); docs/how-to/remote-store.md lists this
KNOWN_FAILURES = {"virtuoso": {"PUT/GET on the default graph"}}


def test_w3c_protocol_and_graph_store_manifests(live_server, shared_data):
    # the manifests post updates and GSP writes as forms: without a token they need the header no HTML form can send
    # (docs/security.md), as any SPARQL client writing to a token-less Attest does
    endpoints = Endpoints(live_server.url, headers={"X-Requested-With": "w3c-tests"})
    results = run_all(shared_data / "w3c-sparql11-tests", endpoints, http_reset(endpoints))
    outcomes = [o for manifest in results.values() for o in manifest]
    known = KNOWN_FAILURES.get(store_kind_under_test(), set())
    failures = [f"{o.name}: {o.reason}" for o in outcomes if not o.passed and o.name not in known]
    passed = sum(o.passed for o in outcomes)
    assert len(outcomes) == 47
    assert not failures and passed >= EXPECTED_PASSES - len(known), "\n".join(failures)
