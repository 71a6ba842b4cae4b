"""Grounded answers: the answer service over the app's store, and the question shapes HTTP and MCP both take."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from attest.answer.inference import reasoner_inference
from attest.answer.limits import MAX_HINTS, MAX_HOPS, MAX_LIMIT, MAX_PASSAGES, MAX_QUESTION_BYTES
from attest.answer.service import AnswerService
from attest.operations.resources import AppResources
from attest.sparql.deadline import live_store


def within_bytes(value: str, name: str) -> str:
    """`value` when its UTF-8 form is at most MAX_QUESTION_BYTES (a validator's check: ValueError otherwise)."""
    if len(value.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise ValueError(f"{name} is over the limit of {MAX_QUESTION_BYTES} bytes (10 KB)")
    return value


def as_of_date(value: Any) -> Any:
    """as_of: a calendar date written YYYY-MM-DD, nothing else (not a number, not a time)."""
    if value is None or isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            if len(value) == 10:
                return date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"as_of must be a date written YYYY-MM-DD (e.g. 2026-10-01), not {str(value)[:40]!r}")


AS_OF_DESCRIPTION = ("Answer as of this day (YYYY-MM-DD): facts that held then rank first, the others are marked past or "
                     "future; default today")


class KagQuery(BaseModel):
    """The kag_query tool shape of DESIGN.md: what an agent asks the graph for."""

    query: str = Field(min_length=1, description="The question or search text, at most 10 KB")
    entities: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=MAX_HINTS, description="Entity ids or names to start from, at most 50")
    include_relations: bool = Field(True, description="Include facts between the entities")
    max_hops: int = Field(2, ge=0, le=MAX_HOPS, description="Hops of expansion over asserted and inferred facts, 0-3")
    limit: int = Field(20, ge=1, le=MAX_LIMIT, description="Most entities and most facts returned, 1-100")
    k: int = Field(5, ge=1, le=MAX_PASSAGES, description="Source passages returned, 1-20")
    as_of: date | None = Field(None, description=AS_OF_DESCRIPTION)

    _as_of = field_validator("as_of", mode="before")(as_of_date)
    _query_size = field_validator("query")(lambda v: within_bytes(v, "query"))


class AnswerRequest(BaseModel):
    """What /answer takes."""

    question: str = Field(min_length=1, description="The question, at most 10 KB")
    max_hops: int = Field(2, ge=0, le=MAX_HOPS, description="Hops of expansion, 0-3")
    limit: int = Field(20, ge=1, le=MAX_LIMIT, description="Most entities and facts in the context, 1-100")
    mode: Literal["auto", "llm", "extractive"] = Field(
        "auto", description="llm: the configured model must answer; extractive: compose from facts; auto: llm, else extractive")
    as_of: date | None = Field(None, description=AS_OF_DESCRIPTION)

    _as_of = field_validator("as_of", mode="before")(as_of_date)
    _question_size = field_validator("question")(lambda v: within_bytes(v, "question"))


def answer_service(resources: AppResources, source: str = "answers") -> AnswerService:
    """The answer service over the app's store (`source` names the caller in the query metrics)."""
    # our own bounded lookups: on the live store, which a stream of ingests does not make wait for a checkpoint
    store = live_store(resources, source)
    return AnswerService(store, resources.iris, resources.settings,
                         reasoner_inference(store, resources.iris, resources.settings), owner=resources.store)
