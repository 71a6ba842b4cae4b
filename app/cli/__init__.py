"""The `attest` command line: one module per command group, registered on one typer app."""

from __future__ import annotations

import sys

import typer

from app.cli.base import cli
from app.errors import AttestError

from app.cli import core  # noqa: E402,F401  (registers commands)
from app.cli import answer  # noqa: E402,F401  (registers answer, verify)
from app.cli import ingest  # noqa: E402,F401  (registers ingest, status, validate, entities)
from app.cli import sparql  # noqa: E402,F401  (registers query, update)
from app.cli import reasoning  # noqa: E402,F401  (registers reason, explain)
from app.cli import index  # noqa: E402,F401  (registers index rebuild)
from app.cli import mcp_stdio  # noqa: E402,F401  (registers mcp)
from app.cli import migrate  # noqa: E402,F401  (registers migrate)


def main() -> None:
    try:
        cli()
    except AttestError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
