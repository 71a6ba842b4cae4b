"""Ingest commands: ingest, status, validate, entities unmerge."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer

from attest.cli.base import cli, settings_of
from attest.cli.compact import finish_bulk_ingest, tables_now
from attest.errors import NotFound
from attest.ingest.load import collect_files
from attest.store.results import solutions
from attest.store import GraphStore, open_store
from attest.vocab import ONT, Iris

if TYPE_CHECKING:
    from attest.ingest.pipeline import DocumentReport

entities_cli = typer.Typer(help="Inspect and correct entity resolution.", no_args_is_help=True)
cli.add_typer(entities_cli, name="entities")


@cli.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files (.txt .md .html .pdf) and folders", exists=True)] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Use the offline rule extractor even if an LLM answers")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Retry the failed chunks of failed documents")] = False,
) -> None:
    """Ingest documents: chunk, extract, validate, resolve, map to RDF, SHACL-gate, commit one graph per document."""
    from attest.ingest.overlap import ingest_files  # the pipeline's extractors and SHACL: imported when used
    from attest.ingest.session import open_session
    from attest.ontology import load_ontology

    if not paths and not retry_failed:
        raise typer.BadParameter("give files or folders to ingest, or --retry-failed", param_hint="PATHS")
    settings = settings_of(ctx)
    files = collect_files(list(paths or []))
    tables_before = tables_now(settings)
    store = open_store(settings)
    wrote = False
    try:
        iris = Iris(settings.base_iri)
        load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
        # the pipeline's reasoner comes up before the run's first write and then derives only what each write
        # adds or retracts; stored records whose stamp is current are kept (README "Reasoner")
        session = open_session(store, settings, offline=offline)
        typer.echo(session.mode)
        reports: list[DocumentReport] = []
        if retry_failed:
            reports.extend(session.pipeline.retry_failed())
        from tqdm import tqdm  # imported when the command runs, not for `attest --help`

        quiet = not sys.stderr.isatty()

        def committed(n: int) -> None:
            if quiet:
                typer.echo(f"committed {n} document(s)", err=True)

        # new documents are committed in batches by the bulk loader, each batch all or nothing; a worker process
        # extracts and gates coming documents meanwhile, and a full batch is written in a thread while the next
        # documents go on (settings.ingest_overlap)
        with session.pipeline.batched(settings.ingest_batch_quads, committed, background=settings.ingest_overlap > 0), \
                tqdm(total=len(files), unit="doc", desc="ingest", disable=quiet) as bar:
            for report in ingest_files(session.pipeline, files, ahead=settings.ingest_overlap):
                bar.update()
                reports.append(report)
                if bar.disable:  # no progress bar (not a terminal): one line per document instead
                    typer.echo(f"{report.outcome} {report.source}", err=True)
                if report.outcome in ("failed", "rejected"):
                    tqdm.write(f"{report.outcome}: {report.message}", file=sys.stderr)
                elif report.message:
                    tqdm.write(f"{report.source}: {report.message}", file=sys.stderr)
                elif report.quarantined:
                    tqdm.write(f"{report.source}: {len(report.quarantined)} item(s) quarantined: "
                               f"{report.quarantined[0]['message']}", file=sys.stderr)
                for warning in report.warnings:  # stored all the same (a fact dated in the future)
                    tqdm.write(f"{report.source}: warning: {warning}", file=sys.stderr)
        reasoner = session.pipeline.reasoner
        if reasoner is not None and reasoner.first is not None:
            kept = "kept the stored records" if reasoner.first.records_kept else "wrote all records"
            typer.echo(f"reasoner: came up over {reasoner.first.asserted} asserted triples ({kept}), then derived "
                       f"each write's consequences; {reasoner.inferred_count()} inferred triples now")
        typer.echo(summary(reports, distinct_counts(store, iris)))
        wrote = any(r.outcome in ("new", "changed", "retried") for r in reports)
        del session, reasoner  # they hold the native store, which must close for a rewrite (finish_bulk_ingest)
    finally:
        store.close()
    if wrote:  # compacted once the store is closed: rewritten through the bulk loader when that pays
        finish_bulk_ingest(settings, tables_before)
    if any(r.outcome in ("failed", "rejected") for r in reports):
        raise typer.Exit(1)


# distinct entities and entity-to-entity facts of the fact summary (one copy each, however many documents say it)
DISTINCT = f"""SELECT (COUNT(DISTINCT ?e) AS ?entities) (COUNT(DISTINCT ?f) AS ?facts) WHERE {{ GRAPH ?g {{
  {{ ?e a ?type }} UNION {{ ?s ?p ?o FILTER(isIRI(?o) && STRSTARTS(STR(?p), "{ONT}")) BIND(CONCAT(STR(?s), STR(?p), STR(?o)) AS ?f) }}
}} }}"""


def summary(reports: list[DocumentReport], distinct: tuple[int, int] | None = None) -> str:
    """What the run did: documents by outcome; chunks, entity mentions and statements in the documents it wrote;
    and, when given, the distinct entities and facts the store holds after it."""
    outcomes = Counter(r.outcome for r in reports)
    done = [r for r in reports if r.status == "done" and r.outcome != "unchanged"]
    parts = [f"documents: {outcomes['new']} new, {outcomes['changed']} changed, {outcomes['unchanged']} unchanged, "
             f"{outcomes['failed'] + outcomes['rejected']} failed"]
    if outcomes["retried"] or outcomes["rebuilt"]:
        parts[0] += f", {outcomes['retried'] + outcomes['rebuilt']} retried"
    parts.append(f"chunks: {sum(r.chunks for r in done)}, entity mentions: {sum(r.entities for r in done)}, "
                 f"relation statements: {sum(r.relations for r in done)}, quarantined: {sum(len(r.quarantined) for r in done)}")
    if distinct is not None:
        parts.append(f"the store now holds {distinct[0]} distinct entities and {distinct[1]} distinct relations between them")
    return "\n".join(parts)


def distinct_counts(store: GraphStore, iris: Iris) -> tuple[int, int]:
    """(entities, entity-to-entity facts) of the fact summary: a small graph, however many documents there are."""
    row = next(iter(solutions(store.query(DISTINCT, named_graphs=[iris.facts_graph], union_default_graph=False))))
    return int(row["entities"].value), int(row["facts"].value)


@cli.command()
def status(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(min=1, help="Documents listed (sorted by source)")] = 50,
    offset: Annotated[int, typer.Option(min=0, help="Documents skipped before the list starts")] = 0,
) -> None:
    """Status of the ingested documents and their chunks (pending, done, failed, quarantined), a page at a time."""
    from attest.ingest.status import StatusRegistry

    settings = settings_of(ctx)
    store = open_store(settings, read_only=True)
    try:
        registry = StatusRegistry(store, Iris(settings.base_iri))
        docs, states = registry.list(limit, offset), registry.counts()
    finally:
        store.close()
    if not states:
        typer.echo("no documents ingested")
        return
    for d in docs:
        by_state = cast("dict[str, int]", d["chunks"])  # chunks by state (StatusRegistry.list)
        chunks = ", ".join(f"{n} {state}" for state, n in sorted(by_state.items()))
        line = f"{d['status']:<8} {d['id']:<40} {d['source']}  [{chunks}]"
        typer.echo(line + (f"  {d['message']}" if d["message"] else ""))
    total = sum(states.values())
    if offset + len(docs) < total:
        typer.echo(f"... {total - offset - len(docs)} more (--offset {offset + len(docs)})")
    typer.echo(f"{total} documents: " + ", ".join(f"{n} {s}" for s, n in sorted(states.items())))


@cli.command()
def validate(ctx: typer.Context) -> None:
    """Run the SHACL shapes over every document graph in the store; exit 1 when any violates them."""
    from attest.ingest.validate_store import validate_store

    settings = settings_of(ctx)
    store = open_store(settings, read_only=True)
    try:
        results = validate_store(store, settings)
    finally:
        store.close()
    bad = [r for r in results if not r.conforms]
    for r in bad:
        for f in r.findings:
            typer.echo(f"{r.graph}: {f.message} (focus {f.focus}{', path ' + f.path if f.path else ''})")
    typer.echo(f"{len(results)} graphs validated, {len(results) - len(bad)} conform, {len(bad)} violate the shapes")
    if bad:
        raise typer.Exit(1)


@entities_cli.command("unmerge")
def entities_unmerge(
    ctx: typer.Context,
    entity_id: Annotated[str, typer.Argument(help="Id of the entity a spelling was merged into (last IRI segment)")],
    label: Annotated[Optional[str], typer.Argument(help="The merged spelling to split off (default: every merged spelling)")] = None,
) -> None:
    """Undo a merge: the spelling becomes its own entity in every document, and is never merged into this one again."""
    from attest.ingest.pipeline import IngestPipeline
    from attest.ingest.session import make_reasoner
    from attest.ingest.unmerge import unmerge

    settings = settings_of(ctx)
    store = open_store(settings)
    try:
        result = unmerge(IngestPipeline(store, settings, None), entity_id, label)  # rebuilds from stored extractions
        if settings.reason_after_ingest and (reasoner := make_reasoner(store, settings)) is not None:
            reasoner.materialize()
    except NotFound as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    finally:
        store.close()
    for spelling, new_id in result.items():
        typer.echo(f"'{spelling}' is now entity {new_id}")
