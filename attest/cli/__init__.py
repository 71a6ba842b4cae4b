"""The `attest` command line: one module per command group, registered on one typer app.

A run imports only the module(s) of the command it invokes (COMMAND_MODULES); `attest --help`, an unknown
command or `attest.cli.cli` imports them all. Start-up is most of a short command's time.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import Any

# command (or command group) -> the modules under attest.cli that register it, in registration order
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "ontology": ("core", "discover"), "serve": ("core",), "init": ("core",), "load": ("core",),
    "export": ("core",), "stats": ("core",), "backup": ("core",), "restore": ("core",),
    "answer": ("answer",), "verify": ("answer",),
    "entities": ("ingest",), "ingest": ("ingest",), "status": ("ingest",), "validate": ("ingest",),
    "compact": ("compact",),
    "query": ("sparql",), "update": ("sparql",),
    "reason": ("reasoning",), "explain": ("reasoning",),
    "index": ("index",),
    "mcp": ("mcp_stdio",),
    "migrate": ("migrate",),
    "ask-sparql": ("ask_sparql",),
}
# every module, in the order `attest --help` lists their commands
ALL_MODULES = ("core", "answer", "ingest", "compact", "sparql", "reasoning", "index", "mcp_stdio", "migrate",
               "ask_sparql", "discover")
_OPTIONS_WITH_VALUE = ("--config", "-c", "--data-dir")  # the app callback's (attest.cli.base.configure)
# commands that have written and closed everything when they return: their process ends without the interpreter's
# teardown, which frees every object one by one (half a second after `reason` on a 100k-triple store), and runs
# without the cyclic GC, whose first pass after the reasoner re-enables it walks every object of the closure
# (another half second); the reasoner pauses it for its whole run anyway (attest/reasoner/engine.py, gc_paused)
EXIT_WITHOUT_TEARDOWN = frozenset({"reason"})


def invoked_command(args: list[str]) -> str | None:
    """The command named on the command line (the first argument that is neither an app option nor its value)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _OPTIONS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def register(modules: tuple[str, ...] = ALL_MODULES) -> Any:
    """Import the command modules (each registers its commands on the app) and return the typer app."""
    for name in modules:
        importlib.import_module(f"attest.cli.{name}")
    from attest.cli.base import cli

    return cli


def __getattr__(name: str) -> Any:
    if name == "cli":  # `from attest.cli import cli`: the app with every command
        return register()
    raise AttributeError(name)


def main() -> None:
    import typer

    from attest.errors import AttestError

    command = invoked_command(sys.argv[1:])
    cli = register(COMMAND_MODULES.get(command or "", ALL_MODULES))
    if command in EXIT_WITHOUT_TEARDOWN:
        gc.disable()
    try:
        cli()
    except AttestError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    except SystemExit as exc:  # how typer ends every run, success included
        if command in EXIT_WITHOUT_TEARDOWN and (exc.code is None or isinstance(exc.code, int)):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(exc.code or 0)
        raise
