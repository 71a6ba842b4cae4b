"""Reasoning commands: reason [--full], explain S P O."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Optional

import typer
from pyoxigraph import Literal, NamedNode

from attest.cli.base import cli, settings_of
from attest.errors import BadRequest
from attest.store import open_store
from attest.vocab import Iris


def depth_progress(level: int, fired: int) -> None:
    """Progress of a long closure, on a terminal: the derivation depth reached and the triples processed."""
    if sys.stderr.isatty():
        typer.echo(f"\r  depth {level}: {fired} triples processed", err=True, nl=False)


def end_progress() -> None:
    if sys.stderr.isatty():
        typer.echo(err=True)


@cli.command()
def reason(
    ctx: typer.Context,
    full: Annotated[bool, typer.Option("--full", help="Recompute from scratch and rewrite the records unless they "
                                                     "already are exactly these, quad for quad (without it, a fresh "
                                                     "process keeps stored records whose stamp is current)")] = False,
) -> None:
    """Materialize the OWL 2 RL consequences of the store into the inferred graph, with derivation records."""
    from attest.reasoner import Reasoner

    settings = settings_of(ctx)
    store = open_store(settings)
    try:
        report = Reasoner(store, Iris(settings.base_iri), settings, progress=depth_progress).materialize(full=full)
        end_progress()
    finally:
        store.close()
    written = "stored records already current" if report.records_kept else f"{report.write_seconds:.2f} s writing"
    typer.echo(f"{report.mode}: {report.asserted} asserted, {report.inferred} inferred triples "
               f"({report.reason_seconds:.2f} s reasoning, {written})")
    for v in report.violations:
        typer.echo(f"inconsistency {v['rule']}: " + " ; ".join(" ".join(t.values()) for t in v["premises"]))
    if report.violations:
        raise typer.Exit(2)


@cli.command()
def explain(
    ctx: typer.Context,
    s: Annotated[str, typer.Argument(help="Subject IRI")],
    p: Annotated[str, typer.Argument(help="Predicate IRI")],
    o: Annotated[str, typer.Argument(help="Object IRI (or a literal with --literal)")],
    literal: Annotated[bool, typer.Option("--literal", help="Read O as a literal's lexical form")] = False,
    max_depth: Annotated[Optional[int], typer.Option("--max-depth", min=1, max=20, help="Depth bound")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the proof tree as JSON")] = False,
) -> None:
    """Show why a triple holds: the rule chain down to asserted triples and their documents."""
    from attest.reasoner.explain import Explainer

    settings = settings_of(ctx)
    try:
        subject, predicate, obj = NamedNode(s), NamedNode(p), Literal(o) if literal else NamedNode(o)
    except ValueError as exc:
        raise BadRequest(f"not a valid IRI: {exc}") from exc
    store = open_store(settings, read_only=True)
    try:
        explainer = Explainer(store, Iris(settings.base_iri))
        tree = explainer.explain(subject, predicate, obj, max_depth or settings.max_trace_depth)
    finally:
        store.close()
    if as_json:
        typer.echo(json.dumps(tree, indent=2))
    else:
        _print_tree(tree, 0)
    if tree["status"] == "unknown":
        raise typer.Exit(1)


def _print_tree(node: dict[str, Any], indent: int) -> None:
    t = node["triple"]
    pad = "  " * indent
    head = f"{pad}{t['s']} {t['p']} {t['o']}"
    if node["status"] == "asserted":
        where = ", ".join(src.get("document") or src["graph"] or "default graph" for src in node["sources"])
        typer.echo(f"{head}   [asserted in {where}]")
    elif node["status"] == "inferred":
        typer.echo(f"{head}   [{node['rule']}, depth {node['depth']}]" + ("  …" if node.get("truncated") else ""))
        for premise in node.get("premises", []):
            _print_tree(premise, indent + 1)
    else:
        typer.echo(f"{head}   [{node['status']}]")
