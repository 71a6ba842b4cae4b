"""The sparql_query tool: a read-only query through the endpoint's executor (deadline, row and byte limits)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from attest.errors import Forbidden
from attest.sparql.lexer import top_level_words
from attest.sparql.protocol import QueryRequest, parse_request
from attest.operations.resources import AppResources
from attest.operations.sparql import sparql_executor

# SELECT/ASK as SPARQL JSON results, CONSTRUCT/DESCRIBE as Turtle: both readable by a model
ACCEPT = "application/sparql-results+json, text/turtle;q=0.9"
UPDATE_WORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"})


class ReadOnlyQuery(BaseModel):
    """What sparql_query takes."""

    query: str = Field(min_length=1, description=(
        "A SPARQL 1.1 SELECT, ASK, CONSTRUCT or DESCRIBE query; the ontology's prefixes must be declared "
        "(e.g. PREFIX ont: <https://w3id.org/attest/ontology#>); at most max_query_chars (default 100,000) characters"))
    timeout: float | None = Field(None, gt=0, description=(
        "Deadline in seconds (default query_timeout_s, 30; at most max_query_timeout_s, 300)"))


def refuse_update(text: str) -> None:
    """Forbidden when the text is a SPARQL Update (its first keyword after the prologue is an update operation)."""
    for keyword in top_level_words(text):
        if keyword is None or keyword.word in ("BASE", "PREFIX"):
            continue
        if keyword.word in UPDATE_WORDS:
            raise Forbidden(f"sparql_query is read-only: {keyword.word} is a SPARQL Update operation and is refused; "
                            "nothing was changed (updates go to POST /sparql with the bearer token)")
        return


async def run_read_only(resources: AppResources, args: ReadOnlyQuery) -> dict[str, Any]:
    """The query's result as text (SPARQL JSON or Turtle), its media type and which limit cut it, if one did."""
    settings = resources.settings
    refuse_update(args.query)
    params = [("query", args.query)] + ([("timeout", repr(args.timeout))] if args.timeout is not None else [])
    request = parse_request("GET", params, None, b"", accept=ACCEPT, max_chars=settings.max_query_chars,
                            default_timeout_s=settings.query_timeout_s, max_timeout_s=settings.max_query_timeout_s,
                            federation_allowlist=settings.federation_allowlist)
    assert isinstance(request, QueryRequest)
    streamed = await sparql_executor(resources).execute(request.query, request.dataset, request.accept,
                                                      request.timeout_s)
    body = bytearray(streamed.head)
    if streamed.rest is not None:
        async for chunk in streamed.rest:
            body += chunk
    return {"media_type": streamed.media_type, "truncated": streamed.truncated,
            "result": bytes(body).decode("utf-8")}
