"""The `attest` command line: one module per command group, registered on one typer app."""

from __future__ import annotations

import sys

import typer

from attest.cli.base import cli
from attest.errors import AttestError

from attest.cli import core  # noqa: E402,F401  (registers commands)
from attest.cli import answer  # noqa: E402,F401  (registers answer, verify)
from attest.cli import ingest  # noqa: E402,F401  (registers ingest, status, validate, entities)
from attest.cli import compact  # noqa: E402,F401  (registers compact)
from attest.cli import sparql  # noqa: E402,F401  (registers query, update)
from attest.cli import reasoning  # noqa: E402,F401  (registers reason, explain)
from attest.cli import index  # noqa: E402,F401  (registers index rebuild)
from attest.cli import mcp_stdio  # noqa: E402,F401  (registers mcp)
from attest.cli import migrate  # noqa: E402,F401  (registers migrate)
from attest.cli import ask_sparql  # noqa: E402,F401  (registers ask-sparql)
from attest.cli import discover  # noqa: E402,F401  (registers ontology discover, proposals, accept, reject)


def main() -> None:
    try:
        cli()
    except AttestError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
