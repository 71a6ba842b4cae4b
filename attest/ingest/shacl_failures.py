"""Remembered SHACL failures: the results pyshacl gave a node, replayed for later nodes with the same signature.

The memo's premise (shacl_memo.py) is that a node's outcome against a one-hop shape depends only on its
signature for that shape; that makes a failure as repeatable as a pass. A result is remembered with its focus node and its
sh:value as placeholders: the value is the focus itself or an IRI object of the result path, identified by its
signature (its types), so the replay finds the new node's own offending objects. Results this cannot express
exactly (a literal value, a message that quotes the node, nested results) are not remembered: such nodes go
to pyshacl every time.
"""

from __future__ import annotations

from typing import Any

import rdflib
from pyoxigraph import NamedNode
from rdflib.namespace import SH

from attest.ingest.shacl_memo import DocumentIndex, ShapeMemo

FOCUS = "focus"  # placeholder of the focus node in a remembered result
VALUE = "value"  # placeholder of the offending object
_MAX_ENTRIES = 50_000


class FailureMemo:
    """(top shape, the node's keys for it) -> the results pyshacl reported for such a node against that shape."""

    def __init__(self, memo: ShapeMemo) -> None:
        self.memo = memo
        self._results: dict[tuple, list[tuple]] = {}

    def replay(self, doc: DocumentIndex, node: NamedNode, shape: int, keys: frozenset, report: rdflib.Graph) -> bool:
        """Add the results remembered for this node's signature to `report`; False when none are known."""
        templates = self._results.get((shape, keys))
        if templates is None:
            return False
        focus = rdflib.URIRef(node.value)
        for role, items in templates:
            for value in self._values(doc, node, role, focus):
                result = rdflib.BNode()
                for p, o in items:
                    report.add((result, p, focus if o == FOCUS else value if o == VALUE else o))
        return True

    def results_by_shape(self, report: rdflib.Graph, node: NamedNode) -> dict[int, list] | None:
        """The node's results in `report` by top shape; None when one cannot be traced to exactly one top shape."""
        out: dict[int, list] = {}
        for result in set(report.subjects(SH.focusNode, rdflib.URIRef(node.value))):
            shape = self.memo.top_shape_of(report.value(result, SH.sourceShape))
            if shape is None:
                return None
            out.setdefault(shape, []).append(result)
        return out

    def remember(self, doc: DocumentIndex, node: NamedNode, shape: int, keys: frozenset, report: rdflib.Graph,
                 results: list) -> None:
        """Remember these results of `node` against `shape` (all of them, or none when one cannot be generalized)."""
        focus = rdflib.URIRef(node.value)
        templates = set()
        for result in results:
            template = self._template(doc, focus, result, report)
            if template is None:
                return
            templates.add(template)
        if len(self._results) > _MAX_ENTRIES:
            self._results.clear()
        self._results[(shape, keys)] = sorted(templates, key=repr)

    def _template(self, doc: DocumentIndex, focus: rdflib.URIRef, result, report: rdflib.Graph) -> tuple | None:
        path, value = report.value(result, SH.resultPath), report.value(result, SH.value)
        role: str | tuple[str, tuple[Any, ...]] | None
        if value is None or value == focus:
            role = None if value is None else FOCUS
        elif isinstance(value, rdflib.URIRef) and isinstance(path, rdflib.URIRef):
            role = (str(path), self.memo.iri_value(str(path), NamedNode(str(value)), doc.types))
        else:
            return None
        items = []
        o: rdflib.term.Node | str  # the report's term, or FOCUS / VALUE in its place
        for p, o in report.predicate_objects(result):
            if p == SH.focusNode:
                o = FOCUS
            elif p == SH.value:
                o = VALUE
            elif isinstance(o, rdflib.Literal) and (str(focus) in o or str(value) in o):
                return None
            elif isinstance(o, rdflib.BNode) and p != SH.sourceShape:  # nested results (sh:detail)
                return None
            items.append((p, o))
        return role, frozenset(items)

    def _values(self, doc: DocumentIndex, node: NamedNode, role, focus: rdflib.URIRef) -> list:
        if not isinstance(role, tuple):
            return [focus if role == FOCUS else None]
        path, signature = role
        return [rdflib.URIRef(q.object.value) for q in doc.stars[node]
                if q.predicate.value == path and isinstance(q.object, NamedNode)
                and self.memo.iri_value(path, q.object, doc.types) == signature]
