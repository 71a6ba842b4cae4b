"""Named SPARQL queries: queries/*.rq files, their header (description, typed parameters) and value binding."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Iterable, Mapping

from pyoxigraph import BlankNode, Literal, NamedNode, QueryBoolean, Store, Triple, Variable

from attest.errors import BadRequest, ConfigError, NotFound, OutboundRefused
from attest.sparql.outbound import check_outbound
from attest.store.base import Term
from attest.vocab import PREFIXES, XSD, Iris, is_valid_id

# Header convention: the leading `#` comment block of a .rq file.
#   # One-line summary.                        -> description (every non-@param line, joined)
#   # @param entity: entity  The entity to ...  -> required parameter ?entity of type `entity`
#   # @param limit: integer = 20  Most rows     -> optional parameter with a default
#   # @param lang: string?  Language tag        -> optional parameter, left unbound when absent
# "all": the union of every graph; "facts": the fact summary, the inferred graph, the ontology, the default graph and
# every graph outside the document and system graphs (one copy of each fact instead of one per document)
DATASETS = ("all", "facts", "inferred")
PARAM_LINE = re.compile(
    r"^@param\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<type>[a-z]+)(?P<optional>\?)?"
    r"(?:\s*=\s*(?P<default>\S+))?(?:\s+(?P<doc>.*))?$"
)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")
PREFIXED_NAME = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z0-9_-]*):(?P<local>[A-Za-z0-9_][A-Za-z0-9_.-]*)$")
ABSOLUTE_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")


def _to_string(raw: str, iris: Iris) -> Term:
    return Literal(raw)


def _to_integer(raw: str, iris: Iris) -> Term:
    if not re.fullmatch(r"[+-]?\d{1,18}", raw):
        raise ValueError("an integer")
    return Literal(str(int(raw)), datatype=NamedNode(XSD + "integer"))


def _to_decimal(raw: str, iris: Iris) -> Term:
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError("a decimal number") from None
    if not value.is_finite():
        raise ValueError("a finite decimal number")
    return Literal(str(value), datatype=NamedNode(XSD + "decimal"))


def _to_boolean(raw: str, iris: Iris) -> Term:
    if raw.lower() not in ("true", "false"):
        raise ValueError("true or false")
    return Literal(raw.lower(), datatype=NamedNode(XSD + "boolean"))


def known_prefixes(iris: Iris) -> dict[str, str]:
    """The ontology's prefixes plus shorthands for IRIs minted under the base (as the browser UI declares them)."""
    minted = {"entity": iris.entity_prefix, "document": iris.document(""), "chunk": iris.chunk(""),
              "graph": iris.base + "graph/"}
    return {**PREFIXES, **minted}


def _to_iri(raw: str, iris: Iris) -> Term:
    """An absolute IRI, or a prefixed name with a known prefix (ont:Technology, entity:sparql)."""
    prefixes = known_prefixes(iris)
    match = PREFIXED_NAME.match(raw)
    if match and match["prefix"] in prefixes:
        return NamedNode(prefixes[match["prefix"]] + match["local"])
    if not ABSOLUTE_IRI.match(raw):
        raise ValueError(f"an absolute IRI or a prefixed name with a known prefix ({', '.join(sorted(prefixes))})")
    try:
        return NamedNode(raw)
    except ValueError:
        raise ValueError("a valid IRI") from None


def _to_entity(raw: str, iris: Iris) -> Term:
    """An entity id (the last path segment of its IRI) or the entity's full IRI under the configured base."""
    if is_valid_id(raw):
        return NamedNode(iris.entity(raw))
    if iris.entity_id(raw) is not None:
        return NamedNode(raw)
    raise ValueError(f"an entity id (letters, digits, '._~-') or an IRI under {iris.entity_prefix}")


CONVERTERS = {
    "string": _to_string, "integer": _to_integer, "decimal": _to_decimal, "boolean": _to_boolean,
    "iri": _to_iri, "entity": _to_entity,
}
# values that satisfy each type, used to check at load time that the query runs with its parameters bound
_SAMPLES = {"string": "x", "integer": "1", "decimal": "1.5", "boolean": "true", "iri": "urn:x", "entity": "x"}


@dataclass(frozen=True)
class Parameter:
    """One declared parameter: bound to the query variable of the same name."""

    name: str
    type: str
    required: bool
    default: str | None = None
    description: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "type": self.type, "required": self.required, "default": self.default,
                "description": self.description}


@dataclass(frozen=True)
class NamedQuery:
    """A parsed queries/<name>.rq file."""

    name: str
    text: str
    description: str
    parameters: tuple[Parameter, ...] = field(default_factory=tuple)
    form: str = "SELECT"
    dataset: str = "all"  # "facts": the fact summary stands for the document graphs; "inferred": GRAPH ?g reads
    # the reasoner's graphs only, the default graph is the facts one (see attest/operations/queries.py _dataset)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "description": self.description, "form": self.form, "dataset": self.dataset,
                "parameters": [p.to_dict() for p in self.parameters]}

    def bind(self, given: Mapping[str, list[str]], iris: Iris) -> dict[str, Term]:
        """Typed terms for the declared parameters from query-string values; BadRequest on any misuse."""
        declared = {p.name for p in self.parameters}
        unknown = sorted(set(given) - declared)
        if unknown:
            raise BadRequest(f"query '{self.name}' has no parameter {', '.join(unknown)}; it takes: "
                             f"{', '.join(sorted(declared)) or 'none'}", query=self.name, unknown=unknown)
        bound: dict[str, Term] = {}
        for param in self.parameters:
            values = given.get(param.name, [])
            if len(values) > 1:
                raise BadRequest(f"parameter '{param.name}' is given {len(values)} times; give it once",
                                 query=self.name, parameter=param.name)
            raw = values[0] if values else param.default
            if raw is None or raw == "":
                if param.required:
                    raise BadRequest(f"missing parameter '{param.name}' ({param.type}) of query '{self.name}'",
                                     query=self.name, parameter=param.name)
                continue
            try:
                bound[param.name] = CONVERTERS[param.type](raw, iris)
            except ValueError as exc:
                raise BadRequest(f"parameter '{param.name}' must be {exc}, got {raw!r}",
                                 query=self.name, parameter=param.name, type=param.type) from None
        return bound


def parse_named_query(name: str, text: str, source: str = "", federation_allowlist: Iterable[str] = ()) -> NamedQuery:
    """Parse the header of one .rq file and check that its SPARQL runs with every parameter bound; a SERVICE or
    LOAD whose target `federation_allowlist` does not hold is refused before the check runs it."""
    where = source or f"{name}.rq"
    try:
        check_outbound(text, federation_allowlist)
    except OutboundRefused as exc:
        raise ConfigError(f"{where}: {exc.message}", file=where) from exc
    description: list[str] = []
    params: list[Parameter] = []
    dataset = "all"
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            if description or params:
                break  # the header ends at the first blank line after it started
            continue
        if not stripped.startswith("#"):
            break
        body = stripped.lstrip("#").strip()
        if body.startswith("@param"):
            params.append(_parse_param(body, f"{where}:{lineno}"))
        elif body.startswith("@dataset"):
            dataset = body.removeprefix("@dataset").strip()
            if dataset not in DATASETS:
                raise ConfigError(f"{where}:{lineno}: unknown dataset {dataset!r}; use one of {', '.join(DATASETS)}",
                                  file=where)
        elif body:
            description.append(body)
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: a parameter is declared twice", file=where)
    query = NamedQuery(name=name, text=text, description=" ".join(description), parameters=tuple(params),
                       form=_query_form(text), dataset=dataset)
    _check_runs(query, where)
    return query


def _parse_param(body: str, where: str) -> Parameter:
    match = PARAM_LINE.match(body)
    if not match:
        raise ConfigError(f"{where}: expected '@param NAME: TYPE[?] [= DEFAULT] [description]', got {body!r}", file=where)
    ptype = match["type"]
    if ptype not in CONVERTERS:
        raise ConfigError(f"{where}: unknown parameter type {ptype!r}; use one of {', '.join(CONVERTERS)}", file=where)
    default = match["default"]
    if default is not None:
        try:
            CONVERTERS[ptype](default, Iris("https://example.org/"))
        except ValueError as exc:
            raise ConfigError(f"{where}: default of '{match['name']}' must be {exc}", file=where) from None
    required = not match["optional"] and default is None
    return Parameter(match["name"], ptype, required, default, (match["doc"] or "").strip())


def _query_form(text: str) -> str:
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    body = re.sub(r"(?i)\b(PREFIX|BASE)\b[^\n]*", " ", body)
    match = re.search(r"(?i)\b(SELECT|CONSTRUCT|DESCRIBE|ASK)\b", body)
    return match[1].upper() if match else "SELECT"


def _check_runs(query: NamedQuery, where: str) -> None:
    """Run the query on an empty store with every parameter bound: catches syntax errors and parameters
    missing from the SELECT projection (pyoxigraph binds substitutions only to projected variables)."""
    sample_iris = Iris("https://example.org/")
    subs: dict[Variable, NamedNode | BlankNode | Literal | Triple] = {
        Variable(p.name): CONVERTERS[p.type](_SAMPLES[p.type], sample_iris) for p in query.parameters}
    try:
        result = Store().query(query.text, substitutions=subs or None)
        if query.form != "ASK" and not isinstance(result, QueryBoolean):
            list(result)
    except SyntaxError as exc:
        raise ConfigError(f"{where}: invalid SPARQL: {exc}", file=where) from exc
    except RuntimeError as exc:
        raise ConfigError(f"{where}: {exc} (a parameter must appear in the SELECT projection)", file=where) from exc


class NamedQueries:
    """The queries of one directory, read on each call so that edited .rq files take effect without a restart."""

    def __init__(self, directory: Path, federation_allowlist: Iterable[str] = ()) -> None:
        self.directory = directory
        self.federation_allowlist = tuple(federation_allowlist)
        self._cache: dict[Path, tuple[float, NamedQuery]] = {}

    def names(self) -> list[str]:
        if not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("*.rq") if NAME.match(p.stem))

    def all(self) -> list[NamedQuery]:
        return [self.get(name) for name in self.names()]

    def get(self, name: str) -> NamedQuery:
        path = self.directory / f"{name}.rq"
        if not NAME.match(name) or not path.is_file():
            raise NotFound(f"no named query '{name}'", query=name, available=self.names())
        mtime = path.stat().st_mtime
        cached = self._cache.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read named query {path.name}: {exc}", file=path.name) from exc
        query = parse_named_query(name, text, source=f"{self.directory.name}/{path.name}",
                                  federation_allowlist=self.federation_allowlist)
        self._cache[path] = (mtime, query)
        return query
