"""Operator routes: ontology reload and per-graph statistics."""

from __future__ import annotations

from fastapi import APIRouter

from attest.api.deps import IrisDep, ResourcesDep, SettingsDep, StoreDep, Writer
from attest.ontology import load_ontology
from attest.operations.reasoning import reasoner_of

router = APIRouter(tags=["operations"])


@router.post("/ontology/reload", dependencies=[Writer])
def reload_ontology(resources: ResourcesDep, store: StoreDep, settings: SettingsDep,
                    iris: IrisDep) -> dict[str, object]:
    """Swap the ontology graph for ontology/*.ttl atomically, then re-derive what the edit changed.

    A broken file answers 422 and changes nothing.
    """
    report = load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
    body: dict[str, object] = {"status": "reloaded", "files": report.files, "triples": report.triples}
    if settings.reason_after_ingest:
        body["reasoning"] = reasoner_of(resources).refresh([iris.ontology_graph]).to_dict()
    return body


@router.get("/stats")
def stats(store: StoreDep) -> dict[str, object]:
    sizes = store.graph_sizes()
    return {"graphs": sizes, "total": sum(sizes.values())}
