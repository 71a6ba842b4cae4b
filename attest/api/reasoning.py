"""Reasoning routes: proof trees of triples (GET /explain), inconsistencies (GET /consistency), POST /reason."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pyoxigraph import Literal, NamedNode

from attest.answer.service import answer_ids
from attest.api.deps import IrisDep, ResourcesDep, SettingsDep, Writer
from attest.errors import BadRequest, NotFound
from attest.operations.resources import AppResources
from attest.reasoner import Reasoner

router = APIRouter(tags=["reasoning"])


def get_reasoner(resources: ResourcesDep) -> Reasoner:
    """One Reasoner per app, created on first use: its in-memory closure makes later updates incremental."""
    return reasoner_of(resources)


def reasoner_of(resources: AppResources) -> Reasoner:
    """get_reasoner for the app's resources (or `attest mcp`'s)."""
    if resources.reasoner is None:
        resources.reasoner = Reasoner(resources.store, resources.iris, resources.settings)
    return resources.reasoner


ReasonerDep = Annotated[Reasoner, Depends(get_reasoner)]


def _iri(value: str, name: str, ids=None) -> NamedNode:
    """An IRI given in full, or as a citable id (a minted entity id or a CURIE of a declared prefix)."""
    try:
        return NamedNode((ids.iri(value) if ids else None) or value)
    except ValueError as exc:
        raise BadRequest(f"'{name}' is not a valid IRI: {value!r}", field=name) from exc


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
) -> dict:
    """Proof tree of (s p o): rule, depth and premises per inferred step, down to asserted triples and the
    documents and chunks they came from. Bounded by max_depth (default: settings.max_trace_depth), cycle-free."""
    return explain_triple(reasoner, settings, iris, s, p, o, o_literal, o_datatype, max_depth)


def explain_triple(reasoner: Reasoner, settings, iris, s: str, p: str, o: str | None, o_literal: str | None,
                   o_datatype: str | None, max_depth: int | None) -> dict:
    """The proof tree of (s p o) (o an IRI or id, or a literal); 404 when neither asserted nor inferred."""
    if (o is None) == (o_literal is None):
        raise BadRequest("give exactly one of 'o' (an IRI) and 'o_literal'")
    ids = answer_ids(settings, iris)
    if o is not None:
        obj = _iri(o, "o", ids)
    else:
        obj = Literal(o_literal, datatype=_iri(o_datatype, "o_datatype")) if o_datatype else Literal(o_literal)
    tree = reasoner.explain(_iri(s, "s", ids), _iri(p, "p", ids), obj, max_depth)
    if tree["status"] == "unknown":
        raise NotFound("the triple is neither asserted nor inferred", triple=tree["triple"])
    return tree


@router.get("/consistency")
def consistency(reasoner: ReasonerDep) -> dict:
    """Inconsistencies found by the last materialization, each with its W3C rule and premise triples."""
    violations = reasoner.consistency()
    return {"consistent": not violations, "violations": violations}


@router.post("/reason", dependencies=[Writer])
def reason(reasoner: ReasonerDep, full: Annotated[bool, Query(description="Recompute from scratch")] = False) -> dict:
    """Materialize OWL 2 RL consequences now (incremental unless `full`)."""
    return reasoner.materialize(full=full).to_dict()
