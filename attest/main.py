"""The FastAPI application: its AppResources (opened in the lifespan, app.state.resources), error mapping, routers."""

from __future__ import annotations

import importlib
import logging
import threading
import time
from contextlib import asynccontextmanager
from typing import AsyncIterator

from fastapi import APIRouter, FastAPI

from attest import __version__, folders, heap
from attest import observability
from attest.api import errors, guard, limits
from attest.api import mcp as api_mcp
from attest.ingest import summary
from attest.ontology import check_ontology, load_ontology
from attest.settings import Settings, content_folders, load_settings
from attest.sparql.deadline import open_executor
from attest.sparql.outbound import federation_prefixes
from attest.errors import StoreUnavailable
from attest.ingest.status import sync_fulltext
from attest.operations.resources import AppResources
from attest.store import GraphStore, open_store, warm
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
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        resources = app.state.resources = open_resources(settings)
        try:
            async with mcp_sessions.run():
                yield
        finally:
            if resources.proxy is not None:  # the chat proxy: pending memory writes, HTTP client
                await resources.proxy.aclose()
            close_resources(resources)

    app = FastAPI(title="Attest", version=__version__, lifespan=lifespan)
    errors.install(app)
    mcp_sessions = api_mcp.install(app, settings)  # MCP over streamable HTTP at /mcp (attest/mcp/)
    limits.install(app, settings)
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


def open_resources(settings: Settings) -> AppResources:
    """Open what requests use (the app's, or `attest mcp`'s): store, ontology, query executor. A remote store down
    at start is prepared by a thread once it answers; /ready says false until then."""
    for setting in folders.packaged_in_use(content_folders(settings)):
        log.info("no %s folder here: using the packaged default %s", folders.FOLDERS[setting], setting)
    iris = Iris(settings.base_iri)
    store = open_store(settings, check=False) if settings.store == "sparql" else open_store(settings)
    resources = AppResources(settings, iris, store)
    if settings.store != "sparql":  # beside the start's own reads: the first requests find the files in memory
        resources.cache_warmer = warm.start(settings.data_dir, settings.warm_cache_mb)
    try:
        _prepare_store(store, settings, iris)
    except StoreUnavailable as exc:
        log.error("store not reachable at start (%s); /ready stays false until it answers", exc.message)
        threading.Thread(target=_prepare_when_reachable, args=(resources,), daemon=True,
                         name="store-prepare").start()
    except BaseException:
        if resources.cache_warmer is not None:
            resources.cache_warmer.stop()
        store.close()  # a broken ontology file must not leave the store locked
        raise
    resources.query_executor = open_executor(store, settings)  # deadlines: attest/sparql/deadline.py
    if resources.query_executor is not None and settings.query_workers_at_start:
        resources.query_executor.warm(settings.query_workers_at_start)
    heap.settle()  # what start-up loaded lives as long as the process: full collections no longer walk it
    return resources


def close_resources(resources: AppResources) -> None:
    resources.store_closing = True
    if resources.cache_warmer is not None:
        resources.cache_warmer.stop()
    if resources.ingest_thread is not None:  # the document being ingested commits first
        resources.ingest_thread.close()
    if resources.query_executor is not None:
        resources.query_executor.close()
    resources.store.close()
    heap.release()


def _prepare_store(store: GraphStore, settings: Settings, iris: Iris) -> None:
    """What a store needs before requests: stale loads rolled back, ontology, summary, full-text index in step."""
    store.ping()  # a server store: fail now when it does not answer, and roll back loads a crash left
    store.drop_stale_loads()
    load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
    summary.ensure(store, iris)  # a store from before the summary, or edited by hand
    sync_fulltext(store, iris)  # after a crash between a commit and its index update


def _prepare_when_reachable(resources: AppResources) -> None:
    while not resources.store_closing:
        time.sleep(STORE_RETRY_S)
        try:
            _prepare_store(resources.store, resources.settings, resources.iris)
        except StoreUnavailable:
            continue
        log.info("store reachable again; ready")
        return


def _routers() -> list[APIRouter]:
    return [importlib.import_module(name).router for name in ROUTER_MODULES]
