"""Operator routes: ontology reload and per-graph statistics."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import IrisDep, SettingsDep, StoreDep, Writer
from app.ontology import load_ontology

router = APIRouter(tags=["operations"])


@router.post("/ontology/reload", dependencies=[Writer])
def reload_ontology(store: StoreDep, settings: SettingsDep, iris: IrisDep) -> dict[str, object]:
    """Swap the ontology graph for ontology/*.ttl atomically; a broken file answers 422 and changes nothing."""
    report = load_ontology(store, settings.ontology_dir, iris)
    return {"status": "reloaded", "files": report.files, "triples": report.triples}


@router.get("/stats")
def stats(store: StoreDep) -> dict[str, object]:
    sizes = store.graph_sizes()
    return {"graphs": sizes, "total": sum(sizes.values())}
