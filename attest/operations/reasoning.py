"""The app's reasoner, and the proof tree of one triple given by ids, CURIEs or IRIs."""

from __future__ import annotations

from typing import Any

from pyoxigraph import Literal, NamedNode

from attest.answer.ids import Ids
from attest.answer.service import answer_ids
from attest.errors import BadRequest, NotFound
from attest.operations.resources import AppResources
from attest.reasoner import Reasoner
from attest.settings import Settings
from attest.vocab import Iris


def reasoner_of(resources: AppResources) -> Reasoner:
    """One Reasoner per app, created on first use: its in-memory closure makes later updates incremental."""
    if resources.reasoner is None:
        resources.reasoner = Reasoner(resources.store, resources.iris, resources.settings)
    return resources.reasoner


def _iri(value: str, name: str, ids: Ids | None = None) -> NamedNode:
    """An IRI given in full, or as a citable id (a minted entity id or a CURIE of a declared prefix)."""
    try:
        return NamedNode((ids.iri(value) if ids else None) or value)
    except ValueError as exc:
        raise BadRequest(f"'{name}' is not a valid IRI: {value!r}", field=name) from exc


def explain_triple(reasoner: Reasoner, settings: Settings, iris: Iris, s: str, p: str, o: str | None,
                   o_literal: str | None, o_datatype: str | None, max_depth: int | None) -> dict[str, Any]:
    """The proof tree of (s p o) (o an IRI or id, or a literal); 404 when neither asserted nor inferred."""
    if (o is None) == (o_literal is None):
        raise BadRequest("give exactly one of 'o' (an IRI) and 'o_literal'")
    ids = answer_ids(settings, iris)
    obj: NamedNode | Literal
    if o is not None:
        obj = _iri(o, "o", ids)
    else:
        literal = o_literal or ""  # given: exactly one of o and o_literal is
        obj = Literal(literal, datatype=_iri(o_datatype, "o_datatype")) if o_datatype else Literal(literal)
    tree = reasoner.explain(_iri(s, "s", ids), _iri(p, "p", ids), obj, max_depth)
    if tree["status"] == "unknown":
        raise NotFound("the triple is neither asserted nor inferred", triple=tree["triple"])
    return tree
