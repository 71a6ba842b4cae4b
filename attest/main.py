"""The FastAPI application: lifespan-created resources, error mapping, routers."""

from __future__ import annotations

import importlib
import logging
import threading
import time
from contextlib import asynccontextmanager

from fastapi import FastAPI

from attest import __version__, folders
from attest import observability
from attest.api import errors, guard, limits
from attest.ingest import summary
from attest.mcp import http as mcp_http
from attest.ontology import check_ontology, load_ontology
from attest.settings import Settings, content_folders, load_settings
from attest.sparql.deadline import open_executor
from attest.sparql.outbound import federation_prefixes
from attest.errors import StoreUnavailable
from attest.ingest.status import sync_fulltext
from attest.store import open_store
from attest.vocab import Iris

log = logging.getLogger("attest.app")
STORE_RETRY_S = 2.0  # how often a store unreachable at start is tried again

# one line per router module; each module exposes `router`
ROUTER_MODULES = (
    "attest.api.health",
    "attest.api.ops",
    "attest.api.admin",
    "attest.api.ui",
    "attest.api.queries",
    "attest.api.answer",
    "attest.api.documents",
    "attest.api.entities",
    "attest.api.browse",
    "attest.api.sparql_generate",
    "attest.api.discover",
    "attest.api.sparql",
    "attest.api.gsp",
    "attest.api.reasoning",
    "attest.api.proxy",
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
    mcp_http.install(app)  # MCP over streamable HTTP at /mcp (attest/mcp/)
    limits.install(app)
    guard.install(app, settings)  # Host allow-list, cross-site refusal, CORS (attest/api/guard.py)
    federation_prefixes(settings.federation_allowlist)  # a bad entry stops the start, with the setting named
    observability.install(app, settings)  # outermost: request ids, access log, HTTP metrics
    for router in _routers():
        app.include_router(router)
    return app


def check_startup(settings: Settings) -> None:
    """What the app's startup would fail on, raised as one AttestError before the server starts: the ontology, the
    embedded store (a remote one may come up later: the app waits for it)."""
    check_ontology(settings.ontology_dir, Iris(settings.base_iri), settings.ontology_modules_off)
    if settings.store != "sparql":
        open_store(settings).close()


def open_resources(state, settings: Settings) -> None:
    """Open what requests use, on `state` (the app's, or `attest mcp`'s): store, ontology, query executor. A remote
    store down at start is prepared by a thread once it answers; /ready says false until then."""
    for setting in folders.packaged_in_use(content_folders(settings)):
        log.info("no %s folder here: using the packaged default %s", folders.FOLDERS[setting], setting)
    state.settings = settings
    state.iris = Iris(settings.base_iri)
    state.store = open_store(settings, check=False) if settings.store == "sparql" else open_store(settings)
    try:
        _prepare_store(state.store, settings, state.iris)
    except StoreUnavailable as exc:
        log.error("store not reachable at start (%s); /ready stays false until it answers", exc.message)
        threading.Thread(target=_prepare_when_reachable, args=(state, settings), daemon=True,
                         name="store-prepare").start()
    except BaseException:
        state.store.close()  # a broken ontology file must not leave the store locked
        raise
    state.query_executor = open_executor(state.store, settings)  # deadlines: attest/sparql/deadline.py


def close_resources(state) -> None:
    state.store_closing = True
    if getattr(state, "ingest_thread", None) is not None:  # the document being ingested commits first
        state.ingest_thread.close()
    if state.query_executor is not None:
        state.query_executor.close()
    state.store.close()


def _prepare_store(store, settings: Settings, iris: Iris) -> None:
    """What a store needs before requests: stale loads rolled back, ontology, summary, full-text index in step."""
    store.ping()  # a server store: fail now when it does not answer, and roll back loads a crash left
    store.drop_stale_loads()
    load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
    summary.ensure(store, iris)  # a store from before the summary, or edited by hand
    sync_fulltext(store, iris)  # after a crash between a commit and its index update


def _prepare_when_reachable(state, settings: Settings) -> None:
    while not getattr(state, "store_closing", False):
        time.sleep(STORE_RETRY_S)
        try:
            _prepare_store(state.store, settings, state.iris)
        except StoreUnavailable:
            continue
        log.info("store reachable again; ready")
        return


def _routers():
    return [importlib.import_module(name).router for name in ROUTER_MODULES]
