"""MCP over streamable HTTP at /mcp on the running service: the bearer token when configured, else loopback only."""

from __future__ import annotations

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from attest.api.deps import require_writer, resources_of
from attest.api.errors import attest_error_handler
from attest.errors import AttestError
from attest.mcp.server import build_server
from attest.settings import Settings

PATH = "/mcp"
LOOPBACK_HOSTS = ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"]


class WritersOnly:
    """ASGI wrapper: every MCP request passes the check that writes pass (attest/api/deps.py require_writer)."""

    path = PATH  # the route template the access log and metrics report

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope.setdefault("route", self)
        request = Request(scope, receive)
        try:
            require_writer(request, resources_of(request.app).settings)
        except AttestError as exc:
            await (await attest_error_handler(request, exc))(scope, receive, send)
            return
        await self.app(scope, receive, send)


def install(app: FastAPI, settings: Settings) -> StreamableHTTPSessionManager:
    """Mount the endpoint; the session manager it returns runs in the app's lifespan (its `run()`). The server
    reads the app's resources at each call: they are opened by the lifespan, after this."""
    # without a token the endpoint trusts loopback clients: a web page that rebinds its DNS name to 127.0.0.1
    # must not reach it, so the Host header must name the loopback (the SDK's DNS-rebinding protection)
    security = None if settings.token else TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=LOOPBACK_HOSTS,
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
    manager = StreamableHTTPSessionManager(app=build_server(lambda: resources_of(app)), security_settings=security)
    # a Route whose endpoint is an ASGI app, as Router.add_route makes (its type admits request functions only)
    app.router.routes.append(Route(PATH, WritersOnly(StreamableHTTPASGIApp(manager)), methods=["GET", "POST", "DELETE"],
                                   include_in_schema=False))
    return manager
