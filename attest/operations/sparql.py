"""The app's SPARQL executor (deadline, row and byte limits), made once per store for the endpoint and the MCP tool."""

from __future__ import annotations

from attest.operations.resources import AppResources
from attest.sparql.executor import SparqlExecutor, executor_for

TRUNCATED_HEADER = "X-Attest-Truncated"  # "rows" or "bytes": a result limit cut the answer


def sparql_executor(resources: AppResources) -> SparqlExecutor:
    """The executor for the store the app opened, made on first use (one per store)."""
    executor = resources.sparql_executor
    if executor is None or resources.sparql_executor_store is not resources.store:
        workers = None if resources.settings.sparql_in_process else resources.query_executor
        executor = resources.sparql_executor = executor_for(resources.store, resources.settings, workers)
        resources.sparql_executor_store = resources.store
    return executor
