"""The FastAPI application: lifespan-created resources, error mapping, routers."""

from __future__ import annotations

import importlib
import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from app import __version__, folders
from app import observability
from app.api import errors, limits
from app.ingest import summary
from app.mcp import http as mcp_http
from app.ontology import check_ontology, load_ontology
from app.settings import Settings, content_folders, load_settings
from app.sparql.deadline import open_executor
from app.store import fulltext, open_store
from app.vocab import Iris

log = logging.getLogger("attest.app")

# one line per router module; each module exposes `router`
ROUTER_MODULES = (
    "app.api.health",
    "app.api.ops",
    "app.api.admin",
    "app.api.ui",
    "app.api.queries",
    "app.api.answer",
    "app.api.documents",
    "app.api.entities",
    "app.api.browse",
    "app.api.sparql",
    "app.api.gsp",
    "app.api.reasoning",
    "app.api.proxy",
)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the store opens and the ontology loads when the app starts, not at import."""
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        open_resources(app.state, settings)
        try:
            async with mcp_http.running(app):
                yield
        finally:
            if getattr(app.state, "proxy", None) is not None:  # the chat proxy: pending memory writes, HTTP client
                await app.state.proxy.aclose()
            close_resources(app.state)

    app = FastAPI(title="Attest", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    errors.install(app)
    mcp_http.install(app)  # MCP over streamable HTTP at /mcp (app/mcp/)
    limits.install(app)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type", "Accept"])
    observability.install(app, settings)  # outermost: request ids, access log, HTTP metrics
    for router in _routers():
        app.include_router(router)
    return app


def check_startup(settings: Settings) -> None:
    """What the app's startup would fail on, raised as one AttestError before the server starts: the ontology, the store."""
    check_ontology(settings.ontology_dir, Iris(settings.base_iri))
    open_store(settings).close()


def open_resources(state, settings: Settings) -> None:
    """Open what requests use, on `state` (the app's, or `attest mcp`'s): store, ontology, query executor."""
    for setting in folders.packaged_in_use(content_folders(settings)):
        log.info("no %s folder here: using the packaged default %s", folders.FOLDERS[setting], setting)
    state.settings = settings
    state.iris = Iris(settings.base_iri)
    state.store = open_store(settings)
    try:
        load_ontology(state.store, settings.ontology_dir, state.iris)
        summary.ensure(state.store, state.iris)  # a store from before the summary, or edited by hand
        fulltext.sync(state.store, state.iris)  # after a crash between a commit and its index update
        state.query_executor = open_executor(state.store, settings)  # deadlines: app/sparql/deadline.py
    except BaseException:
        state.store.close()  # a broken ontology file must not leave the store locked
        raise


def close_resources(state) -> None:
    if state.query_executor is not None:
        state.query_executor.close()
    state.store.close()


def _routers():
    return [importlib.import_module(name).router for name in ROUTER_MODULES]
