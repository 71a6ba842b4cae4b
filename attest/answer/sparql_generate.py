"""Questions turned into checked SPARQL: a model writes a query from the ontology slice retrieval linked, the query is
validated and run under the deadline, one failure is fed back, and /context retrieval answers when both fail.

Without a model the path-derived query (the walks of the best /context paths) is checked and run instead.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Literal, TypedDict

from pyoxigraph import BlankNode, Literal as RdfLiteral, NamedNode, Triple

from attest.answer.compose import compose_extractive
from attest.answer.citations import entity_marker
from attest.answer.lookup import EntityInfo
from attest.answer.models import ContextResponse
from attest.answer.queries import PREFIXES, with_values
from attest.answer.retrieve import ContextQuery
from attest.answer.service import AnswerService
from attest.store.results import solutions
from attest.answer.sparql_check import check_query, known_iris_in
from attest.answer.sparql_models import (
    AttemptSource, CheckStep, QueryAttempt, QuerySource, ResultTerm, SparqlAnswer, SparqlDraft,
)
from attest.errors import BadRequest, ExtractionError, LlmUnavailable, QueryResourcesExceeded, QueryTimeout
from attest.extract.llm_client import LlmClient, llm_available, render_prompt
from attest.extract.sanitize import Finding, sanitize
from attest.store import GraphStore
from attest.store.base import QueryResult

if TYPE_CHECKING:
    from attest.sparql.deadline import DeadlineExecutor

GenerateMode = Literal["auto", "llm", "path"]
RdfTerm = NamedNode | BlankNode | RdfLiteral | Triple
Rows = tuple[list[str], list[dict[str, RdfTerm]]]  # (variables, rows of variable -> pyoxigraph term)
Runner = Callable[[str, float, int], Rows]  # (query, timeout s, max rows) -> rows; raises QueryTimeout at the deadline

MAX_ROWS = 100  # the LIMIT a query gets (its own, when lower, is kept)
MAX_NAMED = 10  # result values the composed answer names
MAX_PROPERTIES = 40  # declared properties shown when retrieval linked none
MAX_RUNS = 3  # queries one request may run: the model's two, then the path-derived one

# Labels, domains and ranges of the IRIs of the VALUES block as written: in any named graph but the inferred one
# (which adds every superclass, owl:Thing included) or in the store's default graph (a vocabulary loaded there).
# Run with the union default graph off.
SCHEMA_FACTS = PREFIXES + """
SELECT ?x ?k ?v WHERE {
  VALUES ?x { %(iris)s }
  VALUES ?k { rdfs:label rdfs:domain rdfs:range }
  VALUES ?inferred { %(inferred)s }
  { GRAPH ?g { ?x ?k ?v } } UNION { ?x ?k ?v }
  FILTER(!BOUND(?g) || ?g != ?inferred)
}"""


@dataclass
class SchemaSlice:
    """What the prompt shows: properties (IRI, label, domains, ranges), classes (IRI, label), linked entities."""

    properties: list[tuple[str, str, list[str], list[str]]]
    classes: list[tuple[str, str]]
    entities: list[tuple[str, str, list[str]]]


class SparqlGenerator:
    """POST /sparql/generate and `attest ask-sparql` over one answer service and one query runner."""

    def __init__(self, service: AnswerService, run: Runner, timeout_s: float, client: LlmClient | None = None) -> None:
        self.service, self.run, self.timeout_s = service, run, timeout_s
        self.lookup = service.lookup
        self._client = client

    def generate(self, question: str, *, mode: GenerateMode = "auto", max_hops: int = 2) -> SparqlAnswer:
        context = self.service.context(ContextQuery(query=question, max_hops=max_hops))
        notes: list[str] = []
        attempts: list[QueryAttempt] = []
        query: str | None = None  # the query whose rows are returned
        columns: list[str] = []
        found: list[dict[str, RdfTerm]] = []
        if mode == "llm" or (mode == "auto" and self._llm_reachable(notes)):
            rows = self._from_model(question, context, attempts, notes)
            if rows is not None:
                query, (columns, found) = rows
                return self._answer(question, "model", query, attempts, columns, found, notes, context=None)
            failed = attempts[-1].steps[-1]
            notes.append(f"the model wrote no query that passed the checks (last: {failed.check}: {failed.detail}); "
                         "answered from /context retrieval, and `query` is the path-derived query")
            source: QuerySource = "fallback"
        else:
            source = "path"
        path_query = self.service.answer_sparql(context, [])
        if path_query is None:
            notes.append("retrieval found no path, so there is no path-derived query")
        else:
            ran = self._attempt("path", path_query, attempts)
            if ran is not None:
                query, (columns, found) = ran
        return self._answer(question, source, query, attempts, columns, found, notes, context=context)

    # the model's query -------------------------------------------------------------------------------------

    def _from_model(self, question: str, context: ContextResponse, attempts: list[QueryAttempt],
                    notes: list[str]) -> tuple[str, Rows] | None:
        messages, findings = self.messages(question, context)
        if kinds := sorted({f.kind for f in findings} - {"unicode"}):
            notes.append(f"the question was sanitized before it reached the model ({', '.join(kinds)})")
        for number in (1, 2):
            try:
                draft = self._llm().structured(messages, SparqlDraft)
            except (LlmUnavailable, ExtractionError) as exc:
                attempts.append(QueryAttempt(source="model", query=None, ok=False,
                                             steps=[CheckStep(check="model", ok=False, detail=exc.message)]))
                if isinstance(exc, LlmUnavailable):
                    return None
                retry = {"check": "model", "detail": "the reply was not the JSON object {\"query\": ...} asked for"}
            else:
                ran = self._attempt("model", draft.query, attempts)
                if ran is not None:
                    return ran
                failed = attempts[-1].steps[-1]
                retry = {"check": failed.check, "detail": failed.detail}
                messages = messages + [{"role": "assistant", "content": draft.model_dump_json()}]
            if number == 1:
                messages = messages + [{"role": "user", "content": render_prompt("sparql_retry", **retry)}]
        return None

    def messages(self, question: str, context: ContextResponse) -> tuple[list[dict[str, str]], list[Finding]]:
        """The chat messages: the graph layout and rules, the ontology slice and linked entities, the sanitized question."""
        cleaned = sanitize(question)
        part = self.schema_slice(context)
        properties = "\n".join(f"- <{iri}> \"{_flat(label)}\": {' | '.join(f'<{d}>' for d in domains) or 'any'} -> "
                               f"{' | '.join(f'<{r}>' for r in ranges) or 'any'}" for iri, label, domains, ranges in part.properties)
        classes = "\n".join(f"- <{iri}> \"{_flat(label)}\"" for iri, label in part.classes)
        entities = "\n".join(f"- <{iri}> \"{_flat(label)}\"" + (f" a {', '.join(f'<{t}>' for t in types)}" if types else "")
                             for iri, label, types in part.entities)
        nonce = hashlib.sha256((cleaned.text + properties + entities).encode("utf-8")).hexdigest()[:12]
        system = render_prompt("sparql_system", nonce=nonce, base=self.service.lookup.iris.base)
        user = render_prompt("sparql_user", nonce=nonce, properties=properties or "(none linked)",
                             classes=classes or "(none linked)", entities=entities or "(none linked)", question=cleaned.text)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}], cleaned.findings

    def schema_slice(self, context: ContextResponse) -> SchemaSlice:
        """The properties on the retrieved paths (else the declared ones, up to MAX_PROPERTIES), the classes they lead
        from and to and the linked entities are typed with, and the entities the question names."""
        ids = self.lookup.ids
        properties = list(dict.fromkeys(r.triple[1] for r in context.relations))
        if not properties:
            properties = sorted(self.lookup.label_index().properties)[:MAX_PROPERTIES]
        linked = list(dict.fromkeys(iri for link in context.links for iri in map(ids.iri, link.entities) if iri))
        facts = self._schema_facts(properties)
        props = [(p, facts[p].get("label", [""])[0], facts[p].get("domain", []), facts[p].get("range", []))
                 for p in properties]
        details = self.lookup.details(linked)
        entities = [(e, details[e].label if e in details else e, list(details[e].types) if e in details else [])
                    for e in linked]
        class_iris = list(dict.fromkeys([c for _, _, d, r in props for c in d + r] + [t for *_, ts in entities for t in ts]))
        classes = self._schema_facts(class_iris)
        return SchemaSlice(props, [(c, classes[c].get("label", [""])[0]) for c in class_iris], entities)

    def _schema_facts(self, iris: list[str]) -> dict[str, dict[str, list[str]]]:
        """IRI -> {"label": [...], "domain": [...], "range": [...]} from any graph (the ontology's included)."""
        out: dict[str, dict[str, list[str]]] = {iri: {} for iri in iris}
        for i in range(0, len(iris), 200):
            rows = [(NamedNode(x),) for x in iris[i:i + 200]]
            text = with_values(SCHEMA_FACTS, iris=rows, inferred=[(NamedNode(self.lookup.iris.inferred_graph),)])
            for row in solutions(self.lookup.store.query(text, union_default_graph=False)):
                key = row["k"].value.rsplit("#", 1)[-1]
                value = row["v"]
                found = out[row["x"].value].setdefault(key, [])
                # labels are literals, domains and ranges IRIs; a triple in several graphs comes once per graph
                if (key == "label") == isinstance(value, RdfLiteral) and value.value not in found:
                    found.append(value.value)
        return out

    # checking and running ------------------------------------------------------------------------------------

    def _attempt(self, source: AttemptSource, text: str, attempts: list[QueryAttempt]) -> tuple[str, Rows] | None:
        """Check and run one query; the attempt is recorded either way. (query as run, rows) or None."""
        checked = check_query(text, known_iris_in(self.lookup.store), MAX_ROWS)
        steps = [CheckStep(check=s.check, ok=s.ok, detail=s.detail) for s in checked.steps]
        attempt = QueryAttempt(source=source, query=text, steps=steps, ok=False)
        attempts.append(attempt)
        steps = attempt.steps  # the model holds its own copy of the list
        if checked.query is None:
            return None
        try:
            rows = self.run(checked.query, self.timeout_s, MAX_ROWS)
        except QueryTimeout as exc:
            steps.append(CheckStep(check="run", ok=False, detail=f"stopped at the deadline: {exc.message}"))
            return None
        except (QueryResourcesExceeded, BadRequest) as exc:  # SparqlSyntaxError is a BadRequest
            steps.append(CheckStep(check="run", ok=False, detail=exc.message))
            return None
        steps.append(CheckStep(check="run", ok=True, detail=f"{len(rows[1])} row(s) within the {self.timeout_s:g} s deadline"))
        attempt.ok = True
        return checked.query, rows

    # the answer --------------------------------------------------------------------------------------------

    def _answer(self, question: str, source: QuerySource, query: str | None, attempts: list[QueryAttempt],
                columns: list[str], solutions: list[dict[str, RdfTerm]], notes: list[str],
                context: ContextResponse | None) -> SparqlAnswer:
        iris = {t.value for row in solutions for t in row.values() if isinstance(t, NamedNode)}
        details = self.lookup.details(iris) if iris else {}
        rows = [{var: self._term(t, details) for var, t in row.items()} for row in solutions]
        if context is not None:  # the path query or the fallback: /context's extractive answer, citing its facts
            text, answers = compose_extractive(context)
        else:
            text, answers = self._rows_text(columns, rows), []
        report = self.service.verify(text).model_copy(update={"mode": "extractive", "answers": answers})
        return SparqlAnswer(question=question, source=source, query=query, attempts=attempts, columns=columns, rows=rows,
                            answer=report, notes=notes)

    def _term(self, term: RdfTerm, details: dict[str, EntityInfo]) -> ResultTerm:
        if isinstance(term, NamedNode):
            info = details.get(term.value)
            return ResultTerm(type="uri", value=term.value, id=self.lookup.ids.of(term.value),
                              label=info.label if info else None)
        if isinstance(term, RdfLiteral):
            return ResultTerm(type="literal", value=term.value)
        if isinstance(term, BlankNode):
            return ResultTerm(type="bnode", value=term.value)
        return ResultTerm(type="triple", value=str(term))

    @staticmethod
    def _rows_text(columns: list[str], rows: list[dict[str, ResultTerm]]) -> str:
        """One sentence naming the result values, each entity with its citation marker (a `?xLabel` column beside
        `?x` only names x, which its entity's label already does)."""
        shown = [c for c in columns if not (c.endswith("Label") and c[:-len("Label")] in columns)]
        named: list[str] = []
        for row in rows:
            for var in shown:
                term = row.get(var)
                if term is None or term.type in ("bnode", "triple") or (term.type == "uri" and not term.id):
                    continue
                if term.type == "uri" and term.id:  # an IRI without an id was skipped above
                    item = f"{_flat(term.label or term.id)} {entity_marker(term.id)}"
                else:
                    item = _flat(term.value)
                if item not in named:
                    named.append(item)
        if not named:
            return "The query returned no answer."
        more = f" and {len(named) - MAX_NAMED} more" if len(named) > MAX_NAMED else ""
        return f"The query's answers: {', '.join(named[:MAX_NAMED])}{more}."

    def _llm(self) -> LlmClient:
        if self._client is None:
            self._client = LlmClient(self.service.settings)
        return self._client

    def _llm_reachable(self, notes: list[str]) -> bool:
        if llm_available(self.service.settings):
            return True
        notes.append(f"no LLM answered at {self.service.settings.llm_base_url}; the path-derived query was run")
        return False


def _flat(text: str) -> str:
    """Graph text on one line, neutralized (labels come from documents and loaded files)."""
    return " ".join(sanitize(str(text)).text.replace('"', "'").split())


def rows_of(result: QueryResult) -> Rows:
    """(variables, rows) of pyoxigraph QuerySolutions, unbound variables left out of each row."""
    found = solutions(result)
    columns = [v.value for v in found.variables]
    rows = []
    for solution in found:
        rows.append({c: solution[c] for c in columns if solution[c] is not None})
    return columns, rows


class _Outcome(TypedDict, total=False):
    """What the query thread of threaded_runner leaves: its rows or its error."""

    rows: Rows
    error: BaseException


def threaded_runner(store: GraphStore, union_default_graph: bool) -> Runner:
    """A runner for a store with no worker processes (the CLI's read-only store): the query runs in a daemon
    thread and is abandoned at the deadline (it stops when the process exits)."""

    def run(query: str, timeout: float, max_rows: int) -> Rows:
        box: _Outcome = {}

        def work() -> None:
            try:
                box["rows"] = rows_of(store.query(query, union_default_graph=union_default_graph))
            except BaseException as exc:  # noqa: BLE001 — handed to the caller below
                box["error"] = exc

        thread = threading.Thread(target=work, daemon=True, name="ask-sparql")
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            raise QueryTimeout(f"query stopped at its deadline of {timeout:g} s", timeout=timeout)
        if "error" in box:
            raise box["error"]
        return box["rows"]

    return run


def executor_runner(executor: DeadlineExecutor, union_default_graph: bool) -> Runner:
    """A runner over the deadline executor's worker processes: a query past its deadline is killed, its CPU freed."""

    def run(query: str, timeout: float, max_rows: int) -> Rows:
        return rows_of(executor.query(query, timeout=timeout, source="sparql_generate", max_rows=max_rows,
                                      union_default_graph=union_default_graph))

    return run
