"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from attest.api.deps import IrisDep, StoreDep
from attest.errors import StoreError

router = APIRouter(tags=["operations"])


@router.get("/health")
def health() -> dict[str, str]:
    return {"status": "alive"}


@router.get("/ready")
def ready(store: StoreDep, iris: IrisDep) -> JSONResponse:
    try:
        ontology_loaded = store.has_graph(iris.ontology_graph)
    except StoreError as exc:  # a remote store that is down: not ready, and why
        return JSONResponse({"status": "not ready", "store": exc.message, "ontology_loaded": False}, status_code=503)
    body = {"status": "ready" if ontology_loaded else "not ready", "store": "open", "ontology_loaded": ontology_loaded}
    return JSONResponse(body, status_code=200 if ontology_loaded else 503)
