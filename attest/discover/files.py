"""Proposal files in ontology/proposed/: written there, listed, accepted (moved into the ontology folder) or rejected."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pyoxigraph import RdfFormat

from attest import folders
from attest.errors import BadRequest, NotFound, OntologyError, RdfSyntaxError
from attest.store.rdfio import parse_quads

PROPOSED = "proposed"  # the folder under the ontology folder; ontology_files() reads *.ttl of the top level only
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.ttl$")


def proposed_dir(ontology_dir: Path) -> Path:
    return ontology_dir / PROPOSED


def writable_ontology_dir(ontology_dir: Path) -> Path:
    """The ontology folder, refused when it is the copy packaged with Attest (not the user's to edit)."""
    if Path(ontology_dir) == folders.packaged("ontology_dir"):
        raise BadRequest("no ontology folder here (the packaged default is in use): run `attest init DIR` for an "
                          "editable copy, or set ontology_dir, before discovering an ontology")
    return Path(ontology_dir)


def write_proposal(ontology_dir: Path, name: str, text: str) -> Path:
    """Write atomically (a reader never sees half a file); never replace an existing proposal."""
    folder = proposed_dir(writable_ontology_dir(ontology_dir))
    folder.mkdir(exist_ok=True)
    target = folder / name
    if target.exists():
        raise BadRequest(f"{target} already exists", file=str(target))
    staged = folder / f".{name}.tmp"
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, target)
    return target


def list_proposals(ontology_dir: Path) -> list[Path]:
    folder = proposed_dir(ontology_dir)
    return sorted(p for p in folder.glob("*.ttl") if p.is_file()) if folder.is_dir() else []


def proposal_path(ontology_dir: Path, name: str) -> Path:
    """A proposal by file name or path; only files directly inside ontology/proposed/ are proposals."""
    folder = proposed_dir(ontology_dir).resolve()
    refused = BadRequest(f"{name[:200]!r} is not a proposal: proposals are .ttl files directly inside {folder}",
                         file=name[:200])
    if "\x00" in name or len(name) > 4096 or not NAME.match(Path(name).name):
        raise refused  # checked before the name reaches the file system
    candidate = Path(name)
    path = (candidate if candidate.is_absolute() or candidate.parent != Path(".") else folder / candidate.name).resolve()
    if path.parent != folder or not NAME.match(path.name):
        raise refused
    if not path.is_file():
        raise NotFound(f"no proposal {path.name} in {folder}", file=path.name)
    return path


def accept_proposal(ontology_dir: Path, name: str) -> Path:
    """Move a proposal into the ontology folder, after checking it parses; a file of that name there is kept."""
    writable_ontology_dir(ontology_dir)
    source = proposal_path(ontology_dir, name)
    try:
        list(parse_quads(source.read_bytes(), RdfFormat.TURTLE, source=str(source)))
    except RdfSyntaxError as exc:
        raise OntologyError(f"{source.name} does not parse, nothing moved: {exc}", errors=[exc.to_dict()]) from exc
    target = Path(ontology_dir) / source.name
    if target.exists():
        raise BadRequest(f"{target} already exists: rename the proposal or remove the file first", file=str(target))
    os.replace(source, target)
    return target


def reject_proposal(ontology_dir: Path, name: str) -> Path:
    """Delete a proposal; the ontology is not touched."""
    path = proposal_path(ontology_dir, name)
    path.unlink()
    return path
