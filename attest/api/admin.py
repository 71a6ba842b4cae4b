"""Operator routes: ontology reload and per-graph statistics."""

from __future__ import annotations

from fastapi import APIRouter, Request

from attest.api.deps import IrisDep, SettingsDep, StoreDep, Writer
from attest.api.reasoning import get_reasoner
from attest.ontology import load_ontology

router = APIRouter(tags=["operations"])


@router.post("/ontology/reload", dependencies=[Writer])
def reload_ontology(request: Request, store: StoreDep, settings: SettingsDep, iris: IrisDep) -> dict[str, object]:
    """Swap the ontology graph for ontology/*.ttl atomically, then re-derive what the edit changed.

    A broken file answers 422 and changes nothing.
    """
    report = load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
    body: dict[str, object] = {"status": "reloaded", "files": report.files, "triples": report.triples}
    if settings.reason_after_ingest:
        body["reasoning"] = get_reasoner(request).refresh([iris.ontology_graph]).to_dict()
    return body


@router.get("/stats")
def stats(store: StoreDep) -> dict[str, object]:
    sizes = store.graph_sizes()
    return {"graphs": sizes, "total": sum(sizes.values())}
