"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import IrisDep, StoreDep

router = APIRouter(tags=["operations"])


@router.get("/health")
def health() -> dict[str, str]:
    return {"status": "alive"}


@router.get("/ready")
def ready(store: StoreDep, iris: IrisDep) -> JSONResponse:
    ontology_loaded = store.has_graph(iris.ontology_graph)
    body = {"status": "ready" if ontology_loaded else "not ready", "store": "open", "ontology_loaded": ontology_loaded}
    return JSONResponse(body, status_code=200 if ontology_loaded else 503)
