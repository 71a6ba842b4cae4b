"""`attest ask-sparql "question"`: the question turned into a checked SPARQL query, its rows and a verified answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, cast

import typer

from attest.cli.answer import check_question, render
from attest.cli.base import cli, settings_of

if TYPE_CHECKING:
    from attest.answer.sparql_models import ResultTerm, SparqlAnswer

MODES = ("auto", "llm", "path")
GenerateMode = Literal["auto", "llm", "path"]
MAX_ROWS_SHOWN = 20


@cli.command("ask-sparql")
def ask_sparql(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question (at most 10 KB)")],
    mode: Annotated[str, typer.Option(help="auto (the model, else the path-derived query), llm or path")] = "auto",
    max_hops: Annotated[int, typer.Option("--max-hops", help="Hops of the retrieval behind the prompt and the fallback, 0-3")] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full response as JSON")] = False,
) -> None:
    """Turn a question into SPARQL (the configured model, checked before it runs, else the path-derived query),
    run it under the query deadline and answer from its rows; /context retrieval answers when the model's query fails."""
    from attest.answer.inference import reasoner_inference  # spaCy and the OpenAI client: imported when used
    from attest.answer.service import AnswerService
    from attest.answer.sparql_generate import SparqlGenerator, threaded_runner
    from attest.store import open_store
    from attest.vocab import Iris

    check_question(question, mode, MODES, max_hops)
    settings = settings_of(ctx)
    store = open_store(settings, read_only=True)
    try:
        iris = Iris(settings.base_iri)
        service = AnswerService(store, iris, settings, reasoner_inference(store, iris, settings))
        # no worker processes here: a query past the deadline is abandoned and stops when this process exits
        generator = SparqlGenerator(service, threaded_runner(store, settings.default_graph_as_union), settings.query_timeout_s)
        result = generator.generate(question, mode=cast(GenerateMode, mode), max_hops=max_hops)  # one of MODES: checked
    finally:
        store.close()
    typer.echo(result.model_dump_json(indent=2) if as_json else render_sparql(result))


def render_sparql(result: SparqlAnswer) -> str:
    """Where the query came from, each attempt's checks, the query, its rows, then the verified answer."""
    out = [f"source: {result.source}", ""]
    for number, attempt in enumerate(result.attempts, 1):
        verdict = "ran" if attempt.ok else "refused"
        out.append(f"attempt {number} ({attempt.source}): {verdict}")
        out += [f"  {'ok  ' if s.ok else 'FAIL'} {s.check}: {s.detail}" for s in attempt.steps]
    if result.query:
        out += ["", "query:", *[f"  {line}" for line in result.query.splitlines()]]
    if result.columns:
        out += ["", f"rows ({len(result.rows)}):", "  " + "\t".join(result.columns)]
        for row in result.rows[:MAX_ROWS_SHOWN]:
            out.append("  " + "\t".join(_cell(row.get(c)) for c in result.columns))
        if len(result.rows) > MAX_ROWS_SHOWN:
            out.append(f"  ... {len(result.rows) - MAX_ROWS_SHOWN} more")
    out += ["", render(result.answer.model_copy(update={"notes": []}))]
    if result.notes:
        out += ["", *[f"note: {n}" for n in result.notes]]
    return "\n".join(out)


def _cell(term: ResultTerm | None) -> str:
    if term is None:
        return "-"
    if term.type == "uri":
        return f"{term.label} ({term.id})" if term.label and term.id else term.id or term.value
    value: str = term.value
    return value
