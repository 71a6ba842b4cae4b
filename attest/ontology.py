"""The ontology: Turtle files in ontology/, checked as a whole and swapped into the ontology graph atomically."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import rdflib
from pyoxigraph import Quad, RdfFormat, serialize
from rdflib.compare import isomorphic

from attest.errors import OntologyError, RdfSyntaxError
from attest.store import GraphStore
from attest.store.rdfio import parse_quads
from attest.vocab import Iris


@dataclass(frozen=True)
class OntologyReport:
    files: list[str]
    triples: int


def ontology_files(directory: Path, off: Collection[str] = ()) -> list[Path]:
    """The module files (*.ttl) of the ontology folder, less the modules the ontology_modules_off setting names."""
    files = sorted(directory.glob("*.ttl"))
    if not files:
        raise OntologyError(f"no ontology files (*.ttl) in {directory}", directory=str(directory))
    if unknown := sorted(set(off) - {p.stem for p in files}):
        raise OntologyError(f"ontology_modules_off names {', '.join(unknown)}, but {directory} has no such module "
                            f"(modules: {', '.join(p.stem for p in files)})", directory=str(directory))
    kept = [p for p in files if p.stem not in set(off)]
    if not kept:
        raise OntologyError(f"ontology_modules_off turns off every module of {directory}", directory=str(directory))
    return kept


_PREFIX_LINE = re.compile(r"^\s*(?:@prefix|PREFIX)\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.IGNORECASE)
_SUBJECT = re.compile(r"^(<[^>\s]*>|[A-Za-z][\w.-]*:[\w.-]*|:[\w.-]*)(?=\s|$)")


def term_sources(directory: Path, off: Collection[str] = ()) -> dict[str, tuple[str, int]]:
    """Where each term is described: IRI -> (file name, line number), the first line that starts with the term as a
    subject (unindented, as the ontology files are written); the first file in name order wins."""
    found: dict[str, tuple[str, int]] = {}
    for path in ontology_files(directory, off):
        prefixes: dict[str, str] = {}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            declared = _PREFIX_LINE.match(line)
            if declared:
                prefixes[declared.group(1) or ""] = declared.group(2)
                continue
            subject = _SUBJECT.match(line)
            if not subject:
                continue
            name = subject.group(1)
            if name.startswith("<"):
                iri = name[1:-1]
            else:
                prefix, _, local = name.partition(":")
                if prefix not in prefixes:
                    continue
                iri = prefixes[prefix] + local
            found.setdefault(iri, (path.name, number))
    return found


def read_ontology(directory: Path, graph: str, off: Collection[str] = ()) -> tuple[list[Quad], list[RdfSyntaxError]]:
    """Parse every ontology file into `graph`; collect all syntax errors rather than stop at the first."""
    quads: list[Quad] = []
    errors: list[RdfSyntaxError] = []
    for path in ontology_files(directory, off):
        try:
            quads.extend(parse_quads(path.read_bytes(), RdfFormat.TURTLE, graph=graph, source=str(path)))
        except RdfSyntaxError as exc:
            errors.append(exc)
    return quads, errors


def check_ontology(directory: Path, iris: Iris, off: Collection[str] = ()) -> OntologyReport:
    """Parse the ontology without touching any store; raise OntologyError listing each file:line:column."""
    quads, errors = read_ontology(directory, iris.ontology_graph, off)
    if errors:
        raise OntologyError(
            "ontology has syntax errors:\n" + "\n".join(e.message for e in errors),
            errors=[e.to_dict() for e in errors],
        )
    return OntologyReport([p.name for p in ontology_files(directory, off)], len(quads))


def load_ontology(store: GraphStore, directory: Path, iris: Iris, off: Collection[str] = ()) -> OntologyReport:
    """Replace the ontology graph with the files' content in one atomic write; a broken file changes nothing.

    An unchanged ontology is not written again: a restart then leaves the store (and its compacted files) alone.
    """
    report = check_ontology(directory, iris, off)
    quads, _ = read_ontology(directory, iris.ontology_graph, off)
    if not holds_exactly(store, iris.ontology_graph, quads):
        store.replace_graph(iris.ontology_graph, quads)
    return report


def holds_exactly(store: GraphStore, graph: str, quads: list[Quad]) -> bool:
    """Whether `graph` holds exactly these quads, up to blank node labels (the parser renames them every time)."""
    stored = list(store.quads(graph))
    if len(stored) != len(set(quads)):
        return False
    return isomorphic(_as_rdflib(stored), _as_rdflib(quads))


def _as_rdflib(quads: list[Quad]) -> rdflib.Graph:
    return rdflib.Graph().parse(data=serialize([q.triple for q in quads], format=RdfFormat.N_TRIPLES), format="nt")
