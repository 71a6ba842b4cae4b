"""`attest migrate --to URL`: copy the embedded store into a remote SPARQL 1.1 store, graph by graph, all or nothing."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from pyoxigraph import DefaultGraph

from attest.cli.base import cli, settings_of
from attest.errors import StoreError
from attest.store.embedded import EmbeddedStore
from attest.vocab import Iris

if TYPE_CHECKING:
    from attest.settings import Settings


def remote_settings(settings: Settings, to: str, query_url: str | None, update_url: str | None,
                    gsp_url: str | None) -> Settings:
    """Settings aimed at the target: `to` is an Oxigraph-style server base (its /query, /update, /store), and
    explicit endpoint URLs win."""
    base = to.rstrip("/")
    return settings.model_copy(update={
        "store": "sparql",
        "store_query_url": query_url or f"{base}/query",
        "store_update_url": update_url or f"{base}/update",
        "store_gsp_url": gsp_url if gsp_url is not None else f"{base}/store",
    })


@cli.command()
def migrate(
    ctx: typer.Context,
    to: Annotated[str, typer.Option("--to", help="Base URL of the target server (Oxigraph: http://host:7878)")],
    query_url: Annotated[Optional[str], typer.Option(help="Its SPARQL query endpoint (default: TO/query)")] = None,
    update_url: Annotated[Optional[str], typer.Option(help="Its SPARQL update endpoint (default: TO/update)")] = None,
    gsp_url: Annotated[Optional[str], typer.Option(help="Its Graph Store Protocol endpoint (default: TO/store; '' for none)")] = None,
    force: Annotated[bool, typer.Option(help="Copy into a target that already holds data (its graphs of the same name are replaced)")] = False,
) -> None:
    """Copy every graph of the embedded store (data_dir) into a remote store; the embedded store is left as it is.

    A cut copy leaves load markers behind: the next Attest process to open the target empties those graphs."""
    from tqdm import tqdm

    from attest.store.remote import RemoteStore, chunks  # httpx: imported when used

    settings = settings_of(ctx)
    iris = Iris(settings.base_iri)
    source = EmbeddedStore(settings.store_path, iris, read_only=True)
    target = RemoteStore(remote_settings(settings, to, query_url, update_url, gsp_url), iris)
    try:
        sizes = source.graph_sizes()
        held = target.graph_sizes()
        if held and not force:
            raise StoreError(f"the store at {target.query_url} already holds {sum(held.values())} quads; "
                             "pass --force to copy over it")
        # the class statistics are exact for the embedded store only: a remote store's writes would not drop them
        graphs = [g for g in sizes if not g.startswith(iris.staging_graph_prefix) and g != iris.statistics_graph]
        for graph in graphs:
            if graph in held:
                target.drop_graph(graph) if graph else target.update("DROP SILENT DEFAULT")
        with target.bulk_write_guard(graphs) as heartbeat, tqdm(total=sum(sizes[g] for g in graphs), unit="quad",
                                                                 disable=not sys.stderr.isatty()) as bar:
            for graph in graphs:
                for batch in chunks(source.quads(graph) if graph else source.raw.quads_for_pattern(
                        None, None, None, DefaultGraph()), target.chunk_quads):
                    target.post_chunk(batch, graph or None)
                    heartbeat()
                    bar.update(len(batch))
        copied = target.graph_sizes()
        wrong = [g for g in graphs if copied.get(g, 0) != sizes[g]]
        if wrong:
            raise StoreError(f"the copy differs in {len(wrong)} graph(s), e.g. {wrong[0] or '(default graph)'}: "
                             f"{sizes[wrong[0]]} quads here, {copied.get(wrong[0], 0)} there")
    finally:
        source.close()
        target.close()
    typer.echo(f"migrated {len(graphs)} graphs, {sum(sizes[g] for g in graphs)} quads to {to}")
