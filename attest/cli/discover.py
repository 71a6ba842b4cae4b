"""Ontology discovery commands: ontology discover | proposals | accept | reject."""

from __future__ import annotations

from typing import Annotated, cast

import typer

from attest.cli.base import settings_of
from attest.cli.core import ontology_cli
from attest.discover import accept_proposal, discover, list_proposals, reject_proposal
from attest.discover.run import DEADLINE_S, MAX_PREDICATES
from attest.store import open_store


@ontology_cli.command("discover")
def ontology_discover(
    ctx: typer.Context,
    review: Annotated[bool | None, typer.Option("--review/--no-review", help="Have the configured LLM write labels, altLabels and comments (default: when one answers)")] = None,
    max_predicates: Annotated[int, typer.Option(min=1, help="Analyse at most this many predicates, the most used first")] = MAX_PREDICATES,
    deadline: Annotated[float, typer.Option(min=1, help="Seconds for the per-predicate analysis; what is left is reported")] = DEADLINE_S,
) -> None:
    """Propose the ontology the data implies: writes ontology/proposed/discovered-*.ttl, changes no graph."""
    from attest.discover.review import Reviewer
    from attest.extract.llm_client import llm_available

    settings = settings_of(ctx)
    if review is None:
        review = llm_available(settings)
        typer.echo(f"LLM review: {'on' if review else 'off'} ({settings.llm_base_url} "
                   f"{'answers' if review else 'does not answer'})", err=True)
    reviewer = Reviewer(settings) if review else None
    store = open_store(settings, read_only=True)
    try:
        found = discover(store, settings, review=reviewer.review if reviewer else None, max_predicates=max_predicates,
                         deadline_s=deadline, progress=lambda message: typer.echo(message, err=True))
    finally:
        store.close()
    summary = found.summary()
    kinds = cast("dict[str, int]", summary["kinds"])  # terms by kind (Discovery.summary)
    typer.echo(f"proposed {summary['terms']} terms ({', '.join(f'{n} {k}' for k, n in kinds.items()) or 'none'}) "
               f"in {found.path}; {summary['already_in_ontology']} already in the ontology left out; "
               f"{summary['seconds']} s")
    for note in found.proposal.notes:
        typer.echo(f"note: {note}")
    name = found.path.name if found.path else ""  # always written here: discover() without a dry run
    typer.echo(f"next: read it, delete what you do not want, then `attest ontology accept {name}` "
               "and `attest ontology reload`")


@ontology_cli.command("proposals")
def ontology_proposals(ctx: typer.Context) -> None:
    """List the proposal files waiting in ontology/proposed/."""
    found = list_proposals(settings_of(ctx).ontology_dir)
    for path in found:
        typer.echo(path.name)
    if not found:
        typer.echo("no proposals", err=True)


@ontology_cli.command("accept")
def ontology_accept(ctx: typer.Context, file: Annotated[str, typer.Argument(help="A proposal in ontology/proposed/ (name or path)")]) -> None:
    """Move a proposal into the ontology folder (checked to parse first); `attest ontology reload` applies it."""
    target = accept_proposal(settings_of(ctx).ontology_dir, file)
    typer.echo(f"accepted: {target}; next: attest ontology reload")


@ontology_cli.command("reject")
def ontology_reject(ctx: typer.Context, file: Annotated[str, typer.Argument(help="A proposal in ontology/proposed/ (name or path)")]) -> None:
    """Delete a proposal; the ontology is not touched."""
    path = reject_proposal(settings_of(ctx).ontology_dir, file)
    typer.echo(f"rejected: {path.name} deleted")
