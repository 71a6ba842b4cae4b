"""Ontology discovery routes: propose (writes ontology/proposed/*.ttl), list, read, accept and reject proposals."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from attest.api.deps import SettingsDep, StoreDep, Writer
from attest.api.heavy import Heavy
from attest.discover import (
    accept_proposal,
    discover,
    list_proposals,
    proposal_path,
    reject_proposal,
)
from attest.discover.run import DEADLINE_S, MAX_PREDICATES
from attest.discover.summary import read_proposal

router = APIRouter(tags=["ontology"])


class DiscoverRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    review: bool = Field(False, description="Have the configured LLM write labels, altLabels and comments")
    max_predicates: int = Field(MAX_PREDICATES, ge=1, le=100_000)
    deadline_s: float = Field(DEADLINE_S, gt=0, le=600)


@router.post("/ontology/discover", dependencies=[Writer, Heavy])
def discover_ontology(request: DiscoverRequest, store: StoreDep, settings: SettingsDep) -> dict[str, object]:
    """Propose the ontology the data implies as ontology/proposed/discovered-*.ttl; no graph changes until a person
    accepts the file and the ontology is reloaded."""
    reviewer = None
    if request.review:
        from attest.discover.review import Reviewer

        reviewer = Reviewer(settings)
    found = discover(store, settings, review=reviewer.review if reviewer else None,
                     max_predicates=request.max_predicates, deadline_s=request.deadline_s)
    return {"status": "proposed", **found.summary()}


@router.get("/ontology/proposals")
def proposals(settings: SettingsDep) -> dict[str, object]:
    """The proposal files waiting in ontology/proposed/, each with its terms."""
    return {"proposals": [read_proposal(path) for path in list_proposals(settings.ontology_dir)]}


@router.get("/ontology/proposals/{name}", response_class=PlainTextResponse)
def proposal_text(name: str, settings: SettingsDep) -> str:
    return proposal_path(settings.ontology_dir, name).read_text(encoding="utf-8")


@router.post("/ontology/proposals/{name}/accept", dependencies=[Writer])
def accept(name: str, settings: SettingsDep) -> dict[str, object]:
    """Move the proposal into the ontology folder; POST /ontology/reload applies it."""
    target = accept_proposal(settings.ontology_dir, name)
    return {"status": "accepted", "file": target.name}


@router.post("/ontology/proposals/{name}/reject", dependencies=[Writer])
def reject(name: str, settings: SettingsDep) -> dict[str, object]:
    path = reject_proposal(settings.ontology_dir, name)
    return {"status": "rejected", "file": path.name}
