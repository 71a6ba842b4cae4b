"""`attest mcp`: the MCP server over stdio, for desktop and IDE clients that start it as a subprocess."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import typer

from attest.cli.base import cli, settings_of
from attest.errors import StoreError

if TYPE_CHECKING:
    from attest.settings import Settings


@cli.command("mcp")
def mcp_stdio(ctx: typer.Context) -> None:
    """Serve MCP over stdin/stdout (tools, resources, prompt); the store must not be open in `attest serve` —
    connect a client to the server's /mcp endpoint then."""
    anyio.run(serve_stdio, settings_of(ctx))


async def serve_stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server  # here, not at import: every other command would pay for it

    from attest.main import close_resources, open_resources
    from attest.mcp.server import build_server

    try:
        resources = open_resources(settings)
    except StoreError as exc:
        raise StoreError(f"{exc.message} (is `attest serve` running on this data directory? then connect the MCP "
                         "client to its /mcp endpoint instead)") from exc
    try:
        server = build_server(lambda: resources)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        close_resources(resources)
