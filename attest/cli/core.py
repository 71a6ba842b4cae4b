"""Core commands: serve, load, export, stats, backup, restore, ontology check|reload."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import typer
import yaml

from attest import folders
from attest.cli.base import cli, settings_of
from attest.errors import StoreError
from attest.ingest import summary
from attest.store import EmbeddedStore, open_store
from attest.store.clean_close import written_from_outside
from attest.store.rdfio import format_for_path
from attest.store.rewrite import NEW, lock_writer, settle, sibling, swap_in, sync_tree
from attest.vocab import Iris

if TYPE_CHECKING:  # the progress bar, the ontology loader (rdflib) and the settings are imported when a command needs them
    from tqdm import tqdm

    from attest.settings import Settings

EXPORT_FORMATS = {"nquads": "nq", "trig": "trig"}

ontology_cli = typer.Typer(help="Check, reload or discover the ontology (ontology/*.ttl; proposals in ontology/proposed/).", no_args_is_help=True)
cli.add_typer(ontology_cli, name="ontology")


@cli.command()
def serve(
    ctx: typer.Context,
    host: Annotated[Optional[str], typer.Option(help="Bind address (default 127.0.0.1)")] = None,
    port: Annotated[Optional[int], typer.Option(help="Port (default 8000)")] = None,
    workers: Annotated[int, typer.Option(min=1, help="API processes (more than 1 needs a remote store, ATTEST_STORE=sparql)")] = 1,
) -> None:
    """Run the HTTP service (SPARQL endpoint, UI, API)."""
    import uvicorn

    from attest.main import check_startup, create_app

    settings = settings_of(ctx)
    check_startup(settings)  # a clear one-line error rather than the server's startup traceback
    if host or port:
        settings = settings.model_copy(update={k: v for k, v in {"host": host, "port": port}.items() if v})
    if workers > 1:
        _serve_workers(settings, workers)
        return
    # logging is ours (JSON, request ids, secret redaction: attest/observability.py), not uvicorn's
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_config=None, access_log=False)


def _serve_workers(settings: Settings, workers: int) -> None:
    """Several API processes on one port (uvicorn's workers), each opening the remote store itself. They get the
    effective settings through a private config file, so CLI options and the environment reach them alike."""
    import json
    import os
    import tempfile

    import uvicorn

    if settings.store != "sparql":
        raise StoreError("--workers above 1 needs a remote store (ATTEST_STORE=sparql): the embedded store is "
                         "locked to one process")
    values = json.loads(settings.model_dump_json())
    values.update({k: getattr(settings, k).get_secret_value() for k in values
                   if hasattr(getattr(settings, k), "get_secret_value")})
    with tempfile.TemporaryDirectory(prefix="attest-workers-") as folder:
        config = Path(folder) / "settings.yaml"
        config.touch(mode=0o600)  # it holds the secrets the environment gave
        config.write_text(yaml.safe_dump(values), encoding="utf-8")
        for key in [k for k in os.environ if k.startswith("ATTEST_")]:
            del os.environ[key]
        os.environ["ATTEST_CONFIG"] = str(config)
        uvicorn.run("attest.main:create_app", factory=True, host=settings.host, port=settings.port, workers=workers,
                    log_config=None, access_log=False)


@cli.command()
def init(
    target: Annotated[Path, typer.Argument(help="Folder for the copies and the config (created if missing)")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite copies and config already there")] = False,
) -> None:
    """Write editable copies of the default ontology, shapes and named queries, with a starter attest.yaml."""
    for path in folders.init_folder(target, force=force):
        typer.echo(f"wrote {path}")
    typer.echo(f"next: cd {target} && attest --config attest.yaml ingest --offline YOUR_DOCUMENTS")


@cli.command()
def load(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(help="RDF files: .ttl .nt .nq .trig .rdf/.owl .jsonld (optionally .gz)", exists=True, dir_okay=False)],
    graph: Annotated[Optional[str], typer.Option("--graph", "-g", help="Named graph for triples (default: the default graph)")] = None,
) -> None:
    """Load RDF files; each is written whole or not at all (a syntax error names file:line:column)."""
    from tqdm import tqdm

    for path in files:
        format_for_path(path)  # unknown extensions fail before anything is written
    settings = settings_of(ctx)
    iris = Iris(settings.base_iri)
    store = open_store(settings)
    try:
        written_from_outside(store)  # a write from outside ingestion: the next open checks everything
        store.update(summary.invalidation(iris))  # and the summary is rebuilt at next use
        for path in files:
            with tqdm(total=None if path.suffix == ".gz" else path.stat().st_size, unit="B", unit_scale=True, desc=path.name, disable=not sys.stderr.isatty()) as bar:
                count = store.bulk_load_file(path, graph=graph, progress=_progress(bar))
            typer.echo(f"{path}: {count} quads loaded" + (f" into <{graph}>" if graph else ""))
    finally:
        store.close()


def _progress(bar: tqdm[Any]) -> Callable[[int], None] | None:
    """The bar's update as the loader's progress callback; None when the bar is off (not a terminal)."""
    if bar.disable:
        return None

    def advance(n: int) -> None:
        bar.update(n)
    return advance


@cli.command()
def export(
    ctx: typer.Context,
    output: Annotated[Path, typer.Argument(help="Target file, or - for standard output")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="nquads or trig")] = "nquads",
    graph: Annotated[Optional[str], typer.Option("--graph", "-g", help="Only this named graph")] = None,
) -> None:
    """Export the whole store (or one graph) as N-Quads or TriG."""
    if fmt not in EXPORT_FORMATS:
        raise typer.BadParameter(f"format must be one of {', '.join(EXPORT_FORMATS)}", param_hint="--format")
    from pyoxigraph import RdfFormat

    store = open_store(settings_of(ctx), read_only=True)
    try:
        rdf_format = RdfFormat.from_extension(EXPORT_FORMATS[fmt])
        if rdf_format is None:  # not reached: EXPORT_FORMATS names extensions pyoxigraph knows
            raise typer.BadParameter(f"no RDF format for {fmt}", param_hint="--format")
        if str(output) == "-":
            store.dump(sys.stdout.buffer, rdf_format, graph=graph)
        else:
            with output.open("wb") as stream:
                store.dump(stream, rdf_format, graph=graph)
    finally:
        store.close()


@cli.command()
def stats(ctx: typer.Context) -> None:
    """Triples per graph."""
    store = open_store(settings_of(ctx), read_only=True)
    try:
        sizes = store.graph_sizes()
    finally:
        store.close()
    width = max((len(g) for g in sizes), default=10)
    for graph, count in sizes.items():
        typer.echo(f"{graph or '(default graph)':<{width}}  {count:>10}")
    typer.echo(f"{'total':<{width}}  {sum(sizes.values()):>10}")


@cli.command()
def backup(ctx: typer.Context, target: Annotated[Path, typer.Argument(help="New directory for the backup")]) -> None:
    """Write a consistent copy of the store (works while the server runs only through the API)."""
    store = open_store(settings_of(ctx))
    try:
        store.backup(target)
    finally:
        store.close()
    typer.echo(f"backup written to {target}")


@cli.command()
def restore(
    ctx: typer.Context,
    source: Annotated[Path, typer.Argument(help="A directory written by `attest backup`", exists=True, file_okay=False)],
    force: Annotated[bool, typer.Option(help="Replace an existing store")] = False,
) -> None:
    """Replace the store with a backup (the server must be stopped)."""
    settings = settings_of(ctx)
    EmbeddedStore(source, Iris(settings.base_iri), read_only=True).close()  # refuse what is not a store
    target = settings.store_path
    if target.exists() and any(target.iterdir()) and not force:
        raise StoreError(f"store {target} is not empty; pass --force to replace it")
    with lock_writer(target):  # no process has the store open meanwhile; a crash leaves the old or the new one
        settle(target)
        staged = sibling(target, NEW)
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(source, staged)
        sync_tree(staged)
        swap_in(target)
    typer.echo(f"store restored from {source}")


@ontology_cli.command("check")
def ontology_check(ctx: typer.Context) -> None:
    """Parse the ontology files; report errors as file:line:column. Changes nothing."""
    from attest.ontology import check_ontology

    settings = settings_of(ctx)
    report = check_ontology(settings.ontology_dir, Iris(settings.base_iri), settings.ontology_modules_off)
    typer.echo(f"ontology OK: {len(report.files)} files, {report.triples} triples")


@ontology_cli.command("reload")
def ontology_reload(ctx: typer.Context) -> None:
    """Swap the ontology graph for the files' content atomically (a broken file changes nothing)."""
    settings = settings_of(ctx)
    iris = Iris(settings.base_iri)
    store = open_store(settings)
    try:
        from attest.ontology import load_ontology

        report = load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
        typer.echo(f"ontology reloaded: {len(report.files)} files, {report.triples} triples")
        if settings.reason_after_ingest:
            from attest.reasoner import Reasoner

            reasoning = Reasoner(store, iris, settings).materialize()
            typer.echo(f"re-derived: {reasoning.inferred} inferred triples, {len(reasoning.violations)} inconsistencies")
    finally:
        store.close()
