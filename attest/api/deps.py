"""Resources created in the app's lifespan, injected into routes through Annotated dependency aliases."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Annotated

from fastapi import Depends, Request
from starlette.applications import Starlette

from attest.api.guard import refuse_unproven_form
from attest.api.origins import LOOPBACK_HOSTS, split_host_header
from attest.errors import Forbidden, Unauthorized
from attest.operations.resources import AppResources
from attest.settings import Settings
from attest.store import GraphStore
from attest.vocab import Iris


def resources_of(app: Starlette) -> AppResources:
    """The app's AppResources, opened by its lifespan (attest/main.py)."""
    resources = getattr(app.state, "resources", None)
    if not isinstance(resources, AppResources):
        raise RuntimeError("the app's resources are not open: requests are served only inside its lifespan")
    return resources


def get_resources(request: Request) -> AppResources:
    return resources_of(request.app)


def get_settings(request: Request) -> Settings:
    return resources_of(request.app).settings


def get_store(request: Request) -> GraphStore:
    return resources_of(request.app).store


def get_iris(request: Request) -> Iris:
    return resources_of(request.app).iris


def _is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "testclient"  # Starlette's in-process test client


def require_writer(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> None:
    """Writes need the configured bearer token; with none configured, only loopback clients may write, and a write
    in a form's content type must carry X-Requested-With (a page of another site can post a form to loopback; a
    form cannot set that header, nor Authorization). The Host and Origin checks are attest/api/guard.py's."""
    token = settings.token.get_secret_value() if settings.token else None
    header = request.headers.get("authorization", "")
    if token:
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise Unauthorized("this write needs a valid bearer token (Authorization: Bearer …)")
        return
    client = request.client.host if request.client else None
    if not _is_loopback(client):
        raise Forbidden("writes are refused from non-local clients when no token is configured (set ATTEST_TOKEN)")
    host = split_host_header(request.headers.get("host", ""))
    if host is None or host[0] not in LOOPBACK_HOSTS:
        # a reverse proxy on this machine makes every client a loopback one: a write that came through a public
        # name (allowed_hosts) or the bind address is not the local user's
        raise Forbidden(f"a write addressed to {request.headers.get('host', '')[:100]!r} needs the token: without "
                        "one, writes are taken only at localhost, 127.0.0.1 or [::1] (set ATTEST_TOKEN)")
    refuse_unproven_form(request)


ResourcesDep = Annotated[AppResources, Depends(get_resources)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[GraphStore, Depends(get_store)]
IrisDep = Annotated[Iris, Depends(get_iris)]
Writer = Depends(require_writer)
