"""Prometheus metrics of the whole service, defined once here; other modules import and increment them."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

# HTTP (observability middleware); `route` is the route template (/queries/{name}), never the raw path
http_requests = Counter("attest_http_requests_total", "HTTP requests answered", ["method", "route", "status"])
http_latency = Histogram("attest_http_request_duration_seconds", "HTTP request latency", ["method", "route"],
                         buckets=LATENCY_BUCKETS)

# SPARQL queries through the deadline executor; `source` is sparql, named, context, ...
queries = Counter("attest_queries_total", "Queries run", ["source", "outcome"])
query_latency = Histogram("attest_query_duration_seconds", "Query latency including queueing", ["source"],
                          buckets=LATENCY_BUCKETS)
query_timeouts = Counter("attest_query_timeouts_total", "Queries stopped at their deadline", ["source"])
query_rejections = Counter("attest_query_rejections_total", "Requests refused with 429 because all slots were busy",
                           ["kind"])
query_truncations = Counter("attest_query_truncations_total", "Results cut at the row or byte limit", ["limit"])
query_workers = Gauge("attest_query_workers", "Live query worker processes")
worker_restarts = Counter("attest_query_worker_restarts_total", "Query workers killed (deadline) or found dead")
snapshot_refreshes = Counter("attest_snapshot_refreshes_total", "Store snapshots taken for the query workers")

# ingestion and extraction
ingests = Counter("attest_ingest_documents_total", "Documents ingested", ["outcome"])
extraction_failures = Counter("attest_extraction_failures_total", "Chunks an extractor failed on", ["extractor"])

# reasoning
reasoning_seconds = Histogram("attest_reasoning_duration_seconds", "Time of one OWL 2 RL materialization",
                              buckets=LATENCY_BUCKETS)
inferred_triples = Counter("attest_inferred_triples_total", "Triples added by materialization")

# LLM (any OpenAI-compatible server)
llm_calls = Counter("attest_llm_calls_total", "LLM calls", ["purpose", "outcome"])
llm_tokens = Counter("attest_llm_tokens_total", "LLM tokens", ["kind"])  # kind: prompt | completion
llm_errors = Counter("attest_llm_errors_total", "LLM call errors", ["kind"])  # timeout, http_429, http_5xx, malformed
