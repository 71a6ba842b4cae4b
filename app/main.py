"""The FastAPI application: lifespan-created resources, error mapping, routers."""

from __future__ import annotations

import importlib
import logging
import threading
import time
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from app import __version__
from app import observability
from app.api import errors, limits
from app.ingest import summary
from app.ontology import load_ontology
from app.settings import Settings, load_settings
from app.sparql.deadline import open_executor
from app.errors import StoreUnavailable
from app.store import fulltext, open_store
from app.vocab import Iris

log = logging.getLogger("attest")
STORE_RETRY_S = 2.0  # how often a store unreachable at start is tried again

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
    "app.api.sparql",
    "app.api.gsp",
    "app.api.reasoning",
)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the store opens and the ontology loads when the app starts, not at import."""
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.iris = Iris(settings.base_iri)
        app.state.store = open_store(settings, check=False) if settings.store == "sparql" else open_store(settings)
        retry = None
        try:
            _prepare_store(app.state.store, settings, app.state.iris)
        except StoreUnavailable as exc:  # a remote store down at start: /health answers, /ready says why
            log.error("store not reachable at start (%s); /ready stays false until it answers", exc.message)
            retry = threading.Thread(target=_prepare_when_reachable, args=(app, settings), daemon=True,
                                     name="store-prepare")
            retry.start()
        app.state.query_executor = open_executor(app.state.store, settings)  # deadlines: app/sparql/deadline.py
        try:
            yield
        finally:
            app.state.store_closing = True
            if app.state.query_executor is not None:
                app.state.query_executor.close()
            app.state.store.close()

    app = FastAPI(title="Attest", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    errors.install(app)
    limits.install(app)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type", "Accept"])
    observability.install(app, settings)  # outermost: request ids, access log, HTTP metrics
    for router in _routers():
        app.include_router(router)
    return app


def _prepare_store(store, settings: Settings, iris: Iris) -> None:
    """What a store needs before requests: stale loads rolled back, ontology, summary, full-text index in step."""
    if hasattr(store, "drop_stale_loads"):
        store.ping()
        store.drop_stale_loads()
    load_ontology(store, settings.ontology_dir, iris)
    summary.ensure(store, iris)  # a store from before the summary, or edited by hand
    fulltext.sync(store, iris)  # after a crash between a commit and its index update


def _prepare_when_reachable(app: FastAPI, settings: Settings) -> None:
    while not getattr(app.state, "store_closing", False):
        time.sleep(STORE_RETRY_S)
        try:
            _prepare_store(app.state.store, settings, app.state.iris)
        except StoreUnavailable:
            continue
        log.info("store reachable again; ready")
        return


def _routers():
    return [importlib.import_module(name).router for name in ROUTER_MODULES]
