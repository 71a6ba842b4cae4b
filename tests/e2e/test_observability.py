"""Request ids, JSON logs, secret redaction, /metrics and the CORS allow-list."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from attest.main import create_app
from attest.observability import configure_logging

TOKEN = "tok-Very-Secret-4711"
API_KEY = "sk-live-KEY-0123456789abcdef"


@pytest.fixture
def log_stream(settings):
    """Our JSON log handler, writing into a buffer for the test (back to stderr afterwards)."""
    stream = io.StringIO()
    yield stream
    configure_logging(settings, stream=sys.stderr)


def _json_lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_request_id_is_set_echoed_and_logged(settings, log_stream):
    app = create_app(settings)
    configure_logging(settings, stream=log_stream)
    with TestClient(app, base_url="http://localhost") as client:
        fresh = client.get("/health")
        given = client.get("/health", headers={"X-Request-ID": "abc-123"})
        hostile = client.get("/health", headers={"X-Request-ID": "x" * 200 + "\nforged"})
    assert len(fresh.headers["x-request-id"]) == 32
    assert given.headers["x-request-id"] == "abc-123"
    assert hostile.headers["x-request-id"] != "x" * 200 + "\nforged" and len(hostile.headers["x-request-id"]) == 32
    access = [e for e in _json_lines(log_stream) if e["logger"] == "attest.access"]
    assert {"abc-123", fresh.headers["x-request-id"]} <= {e["request_id"] for e in access}
    line = next(e for e in access if e["request_id"] == "abc-123")
    assert line["route"] == "/health" and line["status"] == 200 and line["duration_ms"] >= 0


def test_metrics_count_requests_by_route_template(client):
    client.get("/health")
    client.get("/queries/no-such-query")
    body = client.get("/metrics")
    assert body.status_code == 200 and body.headers["content-type"].startswith("text/plain")
    text = body.text
    assert 'attest_http_requests_total{method="GET",route="/health",status="200"}' in text
    assert 'route="/queries/{name}"' in text and "no-such-query" not in text  # templates, not raw paths
    for family in ("attest_http_request_duration_seconds_bucket", "attest_query_timeouts_total",
                   "attest_ingest_documents_total", "attest_extraction_failures_total",
                   "attest_reasoning_duration_seconds", "attest_llm_calls_total", "attest_llm_tokens_total",
                   "attest_llm_errors_total"):
        assert f"# TYPE {family.removesuffix('_bucket').removesuffix('_total')}" in text


def test_token_and_api_key_never_reach_the_logs(settings, log_stream):
    secret_settings = settings.model_copy(update={"token": SecretStr(TOKEN), "llm_api_key": SecretStr(API_KEY)})
    app = create_app(secret_settings)
    configure_logging(secret_settings, stream=log_stream)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.DEBUG)  # the HTTP and LLM client libraries log requests at DEBUG
    try:
        with TestClient(app, base_url="http://localhost") as client:
            wrong = client.post("/ontology/reload", headers={"Authorization": f"Bearer {TOKEN}x"})
            guess = client.post("/ontology/reload", headers={"Authorization": "Bearer guessed-value-999"})
            right = client.post("/ontology/reload", headers={"Authorization": f"Bearer {TOKEN}"})
        log = logging.getLogger("app.test")
        log.warning("client sent Authorization: Bearer %s", TOKEN)
        log.error("calling the LLM with api_key=%s", API_KEY, extra={"headers": f"Authorization: Bearer {API_KEY}"})
        try:
            raise RuntimeError(f"upstream said: bad key {API_KEY}")
        except RuntimeError:
            log.exception("LLM call failed")
    finally:
        root.setLevel(level)
    assert (wrong.status_code, guess.status_code, right.status_code) == (401, 401, 200)
    output = log_stream.getvalue()
    assert output.count("[REDACTED]") >= 3
    assert TOKEN not in output and API_KEY not in output and "guessed-value-999" not in output
    assert TOKEN[:-2] not in output  # not even a prefix of it leaks through the credential patterns


def test_cors_allows_only_listed_origins(settings):
    allowed = "https://analyst.example.org"
    with TestClient(create_app(settings.model_copy(update={"cors_origins": [allowed]})), base_url="http://localhost") as client:
        ok = client.options("/sparql", headers={"Origin": allowed, "Access-Control-Request-Method": "POST"})
        evil = client.options("/sparql", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
        simple = client.get("/health", headers={"Origin": "https://evil.example"})
        simple_ok = client.get("/health", headers={"Origin": allowed})
    assert ok.headers.get("access-control-allow-origin") == allowed
    assert evil.status_code == 400 and "access-control-allow-origin" not in evil.headers
    assert "access-control-allow-origin" not in simple.headers
    assert simple_ok.headers.get("access-control-allow-origin") == allowed


def test_no_cors_headers_without_an_allow_list(client):
    reply = client.get("/health", headers={"Origin": "https://analyst.example.org"})
    assert "access-control-allow-origin" not in reply.headers


def test_reasoning_is_measured_whoever_asks_for_it(client):
    """Regression: only ingest-triggered reasoning reached the reasoning metrics, not POST /reason."""
    def count() -> float:
        for line in client.get("/metrics").text.splitlines():
            if line.startswith("attest_reasoning_duration_seconds_count"):
                return float(line.split()[-1])
        return 0.0

    before = count()
    assert client.post("/reason").status_code == 200
    assert count() == before + 1
