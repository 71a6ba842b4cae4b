"""`attest index rebuild`: the fact summary and the full-text index recomputed from the document graphs."""

from __future__ import annotations

import typer

from attest.cli.base import cli, settings_of
from attest.ingest import summary
from attest.store import fulltext, open_store
from attest.vocab import Iris

index_cli = typer.Typer(help="The fact summary (graph/facts) and the full-text index beside the store.", no_args_is_help=True)
cli.add_typer(index_cli, name="index")


@index_cli.command()
def rebuild(ctx: typer.Context) -> None:
    """Recompute both from the document graphs (the server must be stopped)."""
    from attest.ingest.status import sync_fulltext  # the ingest pipeline: imported when the command runs

    settings = settings_of(ctx)
    iris = Iris(settings.base_iri)
    store = open_store(settings)
    try:
        summary.rebuild(store, iris)
        index = fulltext.for_store(store)
        if index is not None:
            for doc in list(index.held()):
                index.replace(doc, "", [])
        changed = sync_fulltext(store, iris, full=True)
        if index is not None:
            index.recount_words()
    finally:
        store.close()
    typer.echo(f"fact summary rebuilt; full-text index rebuilt ({changed} documents)")
