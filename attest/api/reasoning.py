"""Reasoning routes: proof trees of triples (GET /explain), inconsistencies (GET /consistency), POST /reason."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from attest.api.deps import IrisDep, ResourcesDep, SettingsDep, Writer
from attest.operations.reasoning import explain_triple, reasoner_of
from attest.reasoner import Reasoner

router = APIRouter(tags=["reasoning"])


def get_reasoner(resources: ResourcesDep) -> Reasoner:
    """One Reasoner per app, created on first use: its in-memory closure makes later updates incremental."""
    return reasoner_of(resources)


ReasonerDep = Annotated[Reasoner, Depends(get_reasoner)]


@router.get("/explain")
def explain(
    reasoner: ReasonerDep,
    settings: SettingsDep,
    iris: IrisDep,
    s: Annotated[str, Query(description="Subject IRI or id (minted id, CURIE)")],
    p: Annotated[str, Query(description="Predicate IRI or CURIE")],
    o: Annotated[str | None, Query(description="Object IRI or id (or give o_literal)")] = None,
    o_literal: Annotated[str | None, Query(description="Object as a literal's lexical form")] = None,
    o_datatype: Annotated[str | None, Query(description="Datatype IRI of o_literal (default xsd:string)")] = None,
    max_depth: Annotated[int | None, Query(ge=1, le=20, description="Depth bound of the proof tree")] = None,
) -> dict[str, Any]:
    """Proof tree of (s p o): rule, depth and premises per inferred step, down to asserted triples and the
    documents and chunks they came from. Bounded by max_depth (default: settings.max_trace_depth), cycle-free."""
    return explain_triple(reasoner, settings, iris, s, p, o, o_literal, o_datatype, max_depth)


@router.get("/consistency")
def consistency(reasoner: ReasonerDep) -> dict[str, Any]:
    """Inconsistencies found by the last materialization, each with its W3C rule and premise triples."""
    violations = reasoner.consistency()
    return {"consistent": not violations, "violations": violations}


@router.post("/reason", dependencies=[Writer])
def reason(reasoner: ReasonerDep,
           full: Annotated[bool, Query(description="Recompute from scratch")] = False) -> dict[str, Any]:
    """Materialize OWL 2 RL consequences now (incremental unless `full`)."""
    return reasoner.materialize(full=full).to_dict()
