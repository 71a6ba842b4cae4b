"""Schemathesis against the running server's OpenAPI schema: no 5xx, responses conform to the schema (bounded run).

bench/fuzz.py runs the same checks for longer.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from pydantic import SecretStr
from schemathesis.checks import response_schema_conformance

from tests.conftest import REPO, LiveServer, free_port

EXAMPLES_PER_OPERATION = 25
# 503s that are the service working as designed, not crashing: a deadline hit, no LLM reachable in llm mode
DESIGNED_503 = {"QueryTimeout", "QueryResourcesExceeded", "LlmUnavailable"}


def no_server_error(ctx, response, case) -> None:
    """No 5xx, except the designed 503s, which must say what happened."""
    if response.status_code < 500:
        return None
    try:
        error = response.json().get("error")
    except ValueError:
        error = None
    if response.status_code == 503 and error in DESIGNED_503:
        return None
    raise AssertionError(f"{case.method} {case.formatted_path} answered {response.status_code}: {response.text[:500]}")


def fuzz_settings(tmp_path):
    from attest.settings import load_settings

    return load_settings(
        None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology", shapes_dir=REPO / "shapes",
        queries_dir=REPO / "queries", token=SecretStr("fuzz-token-not-given-to-the-fuzzer"),
        llm_base_url=f"http://127.0.0.1:{free_port()}/v1", llm_timeout_s=1.0, llm_max_retries=0,
        query_timeout_s=3.0, reason_after_ingest=False, query_workers=2,
    )


def test_api_survives_fuzzing(tmp_path):
    """Every operation of the schema, EXAMPLES_PER_OPERATION generated cases each (the pytest plugin of
    schemathesis does not load under this pytest, so operations are driven with hypothesis directly)."""
    with LiveServer(fuzz_settings(tmp_path)) as server:
        api = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
        operations = [result.ok() for result in api.get_all_operations()]
        assert len(operations) >= 15
        failures = []
        for operation in operations:
            @given(case=operation.as_strategy())
            @hypothesis_settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                                 phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
            def exercise(case):
                case.call_and_validate(base_url=server.url, checks=[no_server_error, response_schema_conformance],
                                       timeout=30)

            try:
                exercise()
            except (Exception, BaseExceptionGroup) as exc:  # collected: one report naming each failing operation
                failures.append(f"{operation.method.upper()} {operation.path}: {str(exc)[:1500]}")
    assert not failures, "\n\n".join(failures)
