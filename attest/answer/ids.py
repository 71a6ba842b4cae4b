"""Citable ids for every IRI: a minted entity's short id, else a CURIE from the declared prefixes, else the IRI itself."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pyoxigraph import NamedNode

from attest.vocab import ONT, PREFIXES, Iris, is_valid_id

PREFIX_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
# what a CURIE's local part or an IRI may hold: no space, no delimiter a marker, SPARQL or JSON could be cut at
IRI_CHARS = re.compile(r"^[^\s<>\"{}|\\^`]*$")
SCHEMES_WITHOUT_SLASHES = frozenset({"urn", "mailto", "tag", "did"})  # IRIs written out that have no `//`
ONT_LOCAL = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,99}$")
TURTLE_PREFIX = re.compile(r"^\s*(?:@prefix|PREFIX)\s+([A-Za-z][A-Za-z0-9_.-]*|):\s*<([^>\s]+)>", re.IGNORECASE | re.MULTILINE)
MAX_ID_CHARS = 2000


class Ids:
    """Maps IRIs to the ids cited as `<<entity:ID>>` and back; `iri(of(x)) == x` for every IRI x that has an id.

    - an entity minted under `base_iri` + `entity/`: its last path segment (`oxigraph`);
    - any other IRI under a declared namespace: a CURIE (`movie:Kismet`), the longest namespace winning;
    - any other IRI: the IRI as written (`http://example.org/x`).
    Attest's own non-entity resources (documents, chunks, statements, records) have no id: they are not entities.
    """

    def __init__(self, iris: Iris, prefixes: dict[str, str]) -> None:
        self.iris = iris
        self.prefixes = {p: ns for p, ns in prefixes.items() if PREFIX_NAME.match(p) and ns}
        # longest namespace first, so `movie:` beats a declared parent namespace
        self._by_namespace = sorted(((ns, p) for p, ns in self.prefixes.items()), key=lambda x: -len(x[0]))

    def of(self, iri: str) -> str | None:
        """The citable id of an IRI, or None for Attest's own non-entity resources and unusable IRIs."""
        minted = self.iris.entity_id(iri)
        if minted is not None:
            return minted
        if iri.startswith(self.iris.base) or len(iri) > MAX_ID_CHARS or not IRI_CHARS.match(iri):
            return None
        for namespace, prefix in self._by_namespace:
            if iri.startswith(namespace) and len(iri) > len(namespace):
                return f"{prefix}:{iri[len(namespace):]}"
        return iri

    def node_id(self, iri: str) -> str:
        """The id of an IRI known to have one (a node of a fact or of the label index: GraphLookup.is_node)."""
        found = self.of(iri)
        if found is None:
            raise ValueError(f"{iri} has no citable id")
        return found

    def iri(self, ref: str) -> str | None:
        """The IRI an id names, or None when it names none (an unknown prefix, a malformed id)."""
        if is_valid_id(ref):
            return self.iris.entity(ref)
        if not (0 < len(ref) <= MAX_ID_CHARS and ":" in ref and IRI_CHARS.match(ref)):
            return None  # no prefix or scheme, or a character no IRI holds
        prefix, _, local = ref.partition(":")
        if prefix in self.prefixes:
            iri = self.prefixes[prefix] + local
        elif local.startswith("//") or prefix.lower() in SCHEMES_WITHOUT_SLASHES:
            iri = ref  # an IRI written out
        else:
            return None  # a CURIE whose prefix nobody declared
        try:
            return NamedNode(iri).value
        except ValueError:
            return None

    def predicate_id(self, iri: str) -> str:
        """How a predicate is shown and cited: ontology properties by local name (as DESIGN.md's S|P|O), others as ids."""
        if iri.startswith(ONT) and len(iri) > len(ONT):
            return iri[len(ONT):]
        return self.of(iri) or iri

    def predicate_iri(self, ref: str) -> str | None:
        """The property IRI of a predicate as cited: an ontology local name, a CURIE (`ont:uses` too) or an IRI."""
        if ONT_LOCAL.match(ref):
            return ONT + ref
        return self.iri(ref)


def declared_prefixes(ontology_dir: Path | None, configured: dict[str, str]) -> dict[str, str]:
    """The standard vocabularies' prefixes, those the ontology files declare, then the `prefixes` setting (wins)."""
    out = dict(PREFIXES)
    if ontology_dir is not None:
        out.update(_file_prefixes(str(ontology_dir), _mtimes(Path(ontology_dir))))
    out.update(configured)
    return out


def _mtimes(directory: Path) -> tuple[tuple[str, int], ...]:
    try:
        return tuple(sorted((p.name, p.stat().st_mtime_ns) for p in directory.glob("*.ttl")))
    except OSError:
        return ()


@functools.lru_cache(maxsize=16)
def _file_prefixes(directory: str, mtimes: tuple[tuple[str, int], ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, _ in mtimes:
        try:
            text = (Path(directory) / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for prefix, namespace in TURTLE_PREFIX.findall(text):
            if prefix:
                out.setdefault(prefix, namespace)
    return out
