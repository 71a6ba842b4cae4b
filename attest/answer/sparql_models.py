"""Pydantic models of /sparql/generate: the model's draft, the checks each query went through, the rows, the answer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from attest.answer.models import VerifyReport

QuerySource = Literal["model", "path", "fallback"]
AttemptSource = Literal["model", "path"]
CheckName = Literal["model", "parse", "read_only", "no_service", "iris_exist", "limit", "run"]


class SparqlDraft(BaseModel):
    """What the model is asked to return: one query."""

    query: str = Field(description="One SPARQL 1.1 SELECT query over the knowledge graph; full IRIs in <...> or "
                                   "prefixes declared in the query itself")


class CheckStep(BaseModel):
    """One check a query went through before (and while) it ran."""

    check: CheckName = Field(
        description="model (the model replied with a query), parse, read_only (a SELECT, never an update), "
                    "no_service (no SERVICE clause), iris_exist (every IRI is in the graph or the ontology), "
                    "limit (a LIMIT applied), run (ran within the deadline)")
    ok: bool = Field(description="Whether the check passed")
    detail: str = Field(description="What the check found, e.g. the parser's error or the IRIs that do not exist")


class QueryAttempt(BaseModel):
    """One query and its checks, in order; the first failed step ends the attempt."""

    source: AttemptSource = Field(description="model: written by the model; path: derived from the best /context paths")
    query: str | None = Field(description="The query as written (null when the model gave none)")
    steps: list[CheckStep] = Field(description="The checks, in order, up to the first that failed")
    ok: bool = Field(description="Whether every check passed and the query ran")


class ResultTerm(BaseModel):
    """One value of a result row."""

    type: Literal["uri", "literal", "bnode", "triple"] = Field(description="Kind of RDF term")
    value: str = Field(description="The IRI, the literal's lexical form, or the blank node's id")
    id: str | None = Field(default=None, description="Entity id to cite as <<entity:ID>> (IRIs that have one)")
    label: str | None = Field(default=None, description="The entity's label when the graph gives one")


class SparqlAnswer(BaseModel):
    """What /sparql/generate returns."""

    question: str = Field(description="The question as asked")
    source: QuerySource = Field(description="model: the model's query ran; path: no model, the path-derived query "
                                            "ran; fallback: the model's queries failed, the answer is /context retrieval's")
    query: str | None = Field(description="The query whose rows are returned, as run (with its LIMIT); null when none could run")
    attempts: list[QueryAttempt] = Field(description="Every query tried, with its validation steps, in order")
    columns: list[str] = Field(default_factory=list, description="The query's variables")
    rows: list[dict[str, ResultTerm]] = Field(default_factory=list, description="Result rows: variable -> value (unbound variables left out)")
    answer: VerifyReport = Field(description="The answer, its citations verified against the graph")
    notes: list[str] = Field(default_factory=list, description="What the service did that the caller should know (fallback and why)")
