"""POST /sparql/generate: a question turned into a checked SPARQL query, its rows and a verified answer."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field, field_validator

from attest.answer.inference import reasoner_inference
from attest.answer.limits import MAX_HOPS
from attest.answer.service import AnswerService
from attest.answer.sparql_generate import MAX_RUNS, SparqlGenerator, executor_runner, threaded_runner
from attest.answer.sparql_models import SparqlAnswer
from attest.api.deps import ResourcesDep
from attest.api.heavy import Heavy
from attest.operations.answers import within_bytes
from attest.operations.resources import AppResources
from attest.sparql.deadline import deadline_store, live_store

router = APIRouter(tags=["answers"])


class GenerateRequest(BaseModel):
    """What /sparql/generate takes."""

    question: str = Field(min_length=1, description="The question, at most 10 KB")
    mode: Literal["auto", "llm", "path"] = Field(
        "auto", description="llm: the configured model must write the query; path: the path-derived query; "
                            "auto: the model when one answers, else the path-derived query")
    max_hops: int = Field(2, ge=0, le=MAX_HOPS, description="Hops of the retrieval the prompt and the fallback use, 0-3")

    _question_size = field_validator("question")(lambda v: within_bytes(v, "question"))


def generator_of(resources: AppResources) -> SparqlGenerator:
    """The generator over the app's store: queries run in the deadline executor's workers when it has them."""
    settings = resources.settings
    executor = resources.query_executor
    if executor is not None:
        run = executor_runner(executor, settings.default_graph_as_union)
    else:  # a remote store (its server runs the query under the deadline) or one in memory
        run = threaded_runner(deadline_store(resources, "sparql_generate"), settings.default_graph_as_union)
    # the request's own lookups (retrieval, checks, the answer) keep their deadline whatever the query runs took
    lookups = live_store(resources, "answers", timeout=settings.query_timeout_s * (1 + MAX_RUNS))
    service = AnswerService(lookups, resources.iris, settings, reasoner_inference(lookups, resources.iris, settings),
                            owner=resources.store)
    return SparqlGenerator(service, run, settings.query_timeout_s)


@router.post("/sparql/generate", response_model=SparqlAnswer, dependencies=[Heavy])
def generate(body: GenerateRequest, resources: ResourcesDep) -> SparqlAnswer:
    """Write a SPARQL query for the question (the configured model, checked and run, else the path-derived query)."""
    return generator_of(resources).generate(body.question, mode=body.mode, max_hops=body.max_hops)
