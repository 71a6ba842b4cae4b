"""The MCP tools: each is an input model (its JSON schema is the tool's) and a run over the service's own engines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from pydantic import BaseModel, Field

from attest.answer.models import ContextResponse
from attest.answer.retrieve import ContextQuery
from attest.answer.limits import MAX_VERIFY_CHARS
from attest.mcp.sparql import ReadOnlyQuery, run_read_only
from attest.operations.answers import AnswerRequest, KagQuery, answer_service
from attest.operations.entities import entity_card
from attest.operations.heavy import heavy
from attest.operations.paging import DEFAULT_LIMIT, MAX_LIMIT
from attest.operations.reasoning import explain_triple, reasoner_of
from attest.operations.resources import AppResources

Json = dict[str, Any]
# (app resources, the validated arguments: an instance of the spec's model) -> the tool's result
Run = Callable[[AppResources, Any], Awaitable[Json] | Json]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what it does (for the model choosing it), its arguments and how it runs."""

    name: str
    description: str
    arguments: type[BaseModel]
    run: Run
    blocking: bool = True  # runs in a worker thread (store reads); False: a coroutine on the event loop

    def input_schema(self) -> Json:
        return self.arguments.model_json_schema()


class VerifyArguments(BaseModel):
    """What verify_citations takes."""

    text: str = Field(max_length=MAX_VERIFY_CHARS, description=(
        "Text whose sentences carry citation markers: <<entity:ID>>, <<relation:ID>> or "
        "<<relation:SUBJECT_ID|PREDICATE|OBJECT_ID>>; at most 200,000 characters"))


class ExplainArguments(BaseModel):
    """What explain_fact takes: one triple."""

    subject: str = Field(min_length=1, description="Subject: an entity id (e.g. sparql), a CURIE or an IRI")
    predicate: str = Field(min_length=1, description="Predicate: a CURIE (e.g. ont:implements) or an IRI")
    object: str | None = Field(None, min_length=1, description="Object entity id, CURIE or IRI (or give object_literal)")
    object_literal: str | None = Field(None, description="Object as a literal's lexical form, instead of object")
    object_datatype: str | None = Field(None, description="Datatype IRI of object_literal (default xsd:string)")
    max_depth: int | None = Field(None, ge=1, le=20, description="Depth bound of the proof tree (default 5)")


class EntityArguments(BaseModel):
    """What get_entity takes."""

    id: str = Field(min_length=1, max_length=2000, description="Entity id (e.g. oxigraph), CURIE or IRI")
    limit: int = Field(DEFAULT_LIMIT, ge=1, description=f"Facts and sources per page (at most {MAX_LIMIT})")
    facts_cursor: str | None = Field(None, description="Next page of facts: the facts_next of the previous call")
    sources_cursor: str | None = Field(None, description="Next page of sources: the sources_next of the previous call")


def _kag_query(resources: AppResources, args: KagQuery) -> Json:
    context: ContextResponse = answer_service(resources).context(ContextQuery(**args.model_dump()))
    return context.model_dump(mode="json")


def _verify(resources: AppResources, args: VerifyArguments) -> Json:
    return answer_service(resources).verify(args.text).model_dump(mode="json")


def _explain(resources: AppResources, args: ExplainArguments) -> Json:
    return explain_triple(reasoner_of(resources), resources.settings, resources.iris, args.subject, args.predicate,
                          args.object, args.object_literal, args.object_datatype, args.max_depth)


def _entity(resources: AppResources, args: EntityArguments) -> Json:
    return entity_card(resources.store, resources.iris, resources.settings, args.id, limit=args.limit,
                       facts_cursor=args.facts_cursor, sources_cursor=args.sources_cursor)


def _answer(resources: AppResources, args: AnswerRequest) -> Json:
    with heavy(resources):
        report = answer_service(resources).answer(args.question, mode=args.mode, max_hops=args.max_hops,
                                                  limit=args.limit, as_of=args.as_of)
    return report.model_dump(mode="json")


BUILT_IN = (
    ToolSpec("kag_query",
             "Graph context for a question: the best relation paths from the entities it names, their facts "
             "(asserted or inferred, with relation ids), the entities with types and descriptions, source snippets, "
             "and a context text whose citation markers (<<entity:ID>>, <<relation:ID>>) an answer should copy.",
             KagQuery, _kag_query),
    ToolSpec("sparql_query",
             "Run a read-only SPARQL 1.1 query (SELECT, ASK, CONSTRUCT, DESCRIBE) over the whole graph (default "
             "graph = union of all graphs). SELECT/ASK answer SPARQL JSON results, CONSTRUCT/DESCRIBE Turtle. "
             "Updates are refused. The query runs under the service's deadline and row/byte limits.",
             ReadOnlyQuery, run_read_only, blocking=False),
    ToolSpec("verify_citations",
             "Check the citation markers of any text (e.g. your own answer) against the graph: per citation its "
             "status, resolved entity or fact, confidence and inference trace; per sentence a confidence and flags "
             "(low_confidence, removed, ungrounded); the text with unsupported claims removed.",
             VerifyArguments, _verify),
    ToolSpec("explain_fact",
             "Why a triple holds: its proof tree, each inferred step with its OWL 2 RL rule, depth and premises, "
             "down to asserted triples with the documents and chunks they came from.",
             ExplainArguments, _explain),
    ToolSpec("get_entity",
             "An entity's card: labels, types (asserted and inferred), descriptions, a page of its facts and a page "
             "of the document passages that mention it; pass facts_next / sources_next back as the cursors.",
             EntityArguments, _entity),
    ToolSpec("answer",
             "Answer a question from the graph (the configured LLM, or composed from graph facts): every claim "
             "carries citation markers that were verified and scored before the answer is returned.",
             AnswerRequest, _answer),
)
