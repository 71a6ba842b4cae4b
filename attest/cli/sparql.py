"""SPARQL commands: attest query (string, file or stdin; --format) and attest update."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from attest.cli.base import cli, settings_of
from attest.errors import BadRequest
from attest.ingest import summary
from attest.sparql.executor import apply_update, evaluate, serialize
from attest.sparql.formats import FORMATS_BY_NAME, GRAPH_FORMATS, RESULT_FORMATS, format_named, negotiate, result_kind
from attest.sparql.outbound import check_outbound
from attest.sparql.protocol import Dataset
from attest.store import open_store
from attest.store.clean_close import written_from_outside
from attest.vocab import Iris

FORMAT_HELP = "Output format: " + "|".join(FORMATS_BY_NAME) + " (default json for SELECT/ASK, turtle for CONSTRUCT/DESCRIBE)"


def _text(text: Optional[str], file: Optional[Path], what: str) -> str:
    if (text is None) == (file is None):
        raise typer.BadParameter(f"give the {what} as an argument (or - for stdin) or with --file, not both")
    if file is not None:
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise typer.BadParameter(f"cannot read {file}: {exc}", param_hint="--file") from exc
    return sys.stdin.read() if text == "-" else text  # type: ignore[return-value]


@cli.command()
def query(
    ctx: typer.Context,
    text: Annotated[Optional[str], typer.Argument(help="SPARQL query text, or - to read it from stdin")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read the query from this .rq file",
                                                 exists=True, dir_okay=False)] = None,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    graph: Annotated[Optional[list[str]], typer.Option("--graph", "-g", help="Default graph IRI (repeatable)")] = None,
    named_graph: Annotated[Optional[list[str]], typer.Option("--named-graph", help="Named graph IRI (repeatable)")] = None,
) -> None:
    """Run a SPARQL query against the store and write the result to standard output."""
    settings = settings_of(ctx)
    sparql = _text(text, file, "query")
    check_outbound(sparql, settings.federation_allowlist)
    chosen = format_named(fmt) if fmt else None
    store = open_store(settings, read_only=True)
    try:
        if store.raw is not None:
            result = evaluate(store.raw, sparql, Dataset(tuple(graph or ()), tuple(named_graph or ())),
                              union_default_graph=settings.default_graph_as_union)
        else:  # a remote store: the server evaluates it over the same dataset
            result = store.query(sparql, default_graph=list(graph or ()) or None,
                                 named_graphs=list(named_graph or ()) or None,
                                 union_default_graph=settings.default_graph_as_union and not graph)
        kind = result_kind(result)
        allowed = GRAPH_FORMATS if kind == "graph" else RESULT_FORMATS
        if chosen is not None and chosen not in allowed:
            raise BadRequest(f"--format {chosen.name} does not fit a {'CONSTRUCT/DESCRIBE' if kind == 'graph' else 'SELECT/ASK'} "
                             f"query; use one of {', '.join(f.name for f in allowed)}")
        serialize(result, chosen or negotiate(None, kind), sys.stdout.buffer)
        sys.stdout.buffer.flush()
    finally:
        store.close()


@cli.command()
def update(
    ctx: typer.Context,
    text: Annotated[Optional[str], typer.Argument(help="SPARQL update text, or - to read it from stdin")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read the update from this .ru file",
                                                 exists=True, dir_okay=False)] = None,
) -> None:
    """Apply a SPARQL update in one transaction (the server must be stopped; use POST /sparql while it runs)."""
    sparql = _text(text, file, "update")
    check_outbound(sparql, settings_of(ctx).federation_allowlist)
    store = open_store(settings_of(ctx))
    try:
        then = summary.invalidation(Iris(settings_of(ctx).base_iri))
        written_from_outside(store)
        if store.raw is not None:
            apply_update(store.raw, sparql, Dataset(), then=then)
        else:  # a remote store: the client's update and ours in one request
            store.update(f"{sparql.rstrip().removesuffix(';')}\n;\n{then}")
    finally:
        store.close()
    typer.echo("update applied")
