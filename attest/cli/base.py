"""The typer app every command module registers on, and the helpers commands share."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from attest import folders

if TYPE_CHECKING:  # pydantic-settings is a fifth of `attest --help`: loaded when a command runs
    from attest.settings import Settings

cli = typer.Typer(
    name="attest",
    help="Attest: documents to a verified RDF knowledge graph with grounded answers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@cli.callback()
def configure(
    ctx: typer.Context,
    config: Annotated[Optional[Path], typer.Option("--config", "-c", help="YAML or TOML config file (or $ATTEST_CONFIG)")] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help="Store directory (overrides config and env)")] = None,
) -> None:
    if ctx.invoked_subcommand == "init":
        return  # writes the folders a broken configuration may be missing
    from attest.settings import content_folders, load_settings

    overrides = {"data_dir": data_dir} if data_dir else {}
    ctx.obj = load_settings(config, **overrides)
    for setting in folders.packaged_in_use(content_folders(ctx.obj)):
        typer.echo(f"note: no {folders.FOLDERS[setting]} folder here: using the packaged default {setting}", err=True)


def settings_of(ctx: typer.Context) -> Settings:
    settings: Settings = ctx.obj  # the app callback's load_settings
    return settings
