"""What an extractor returns for one chunk: entities, relations and literal attributes, as pydantic models (also the LLM's JSON schema)."""

from __future__ import annotations

from datetime import date
from typing import Any, Protocol

from pydantic import BaseModel, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from attest.extract.dates import partial_date


class ExtractedEntity(BaseModel):
    """An entity mentioned in a chunk."""

    name: str = Field(description="The entity's name as written in the text (its label)")
    type: str = Field(description="Local name of an ontology class, e.g. Technology, Person, Organization")
    description: str = Field(default="", description="One sentence about the entity, from the text only")
    confidence: float = Field(description="How sure the extractor is, from 0 to 1")
    start: int | None = Field(default=None, description="Character offset in the chunk where the mention starts")
    end: int | None = Field(default=None, description="Character offset in the chunk where the mention ends (exclusive)")


class ExtractedRelation(BaseModel):
    """A relation between two entities of the same chunk."""

    subject: str = Field(description="Name of the subject entity, exactly as in `entities`")
    predicate: str = Field(description="Local name of an ontology object property, e.g. uses, partOf, improves")
    object: str = Field(description="Name of the object entity, exactly as in `entities`")
    confidence: float = Field(description="How sure the extractor is, from 0 to 1")
    start: int | None = Field(default=None, description="Character offset in the chunk where the sentence stating it starts")
    end: int | None = Field(default=None, description="Character offset in the chunk where that sentence ends (exclusive)")
    valid_from: date | None = Field(default=None, description="First day the relation holds, when the text dates it "
                                                      "(\"since 2019\" -> 2019-01-01), else null")
    valid_to: date | None = Field(default=None, description="Last day the relation holds, when the text dates its end "
                                                    "(\"until 2005\" -> 2005-12-31), else null")

    # a model may send a year or a month alone ("2019", "2019-03"), or something unreadable: read by the conventions
    # (a start is the period's first day, an end its last), or dropped; never a failed chunk, never a Unix timestamp
    @field_validator("valid_from", mode="before")
    @classmethod
    def _start_day(cls, value: Any) -> date | None:
        return partial_date(value, end=False)

    @field_validator("valid_to", mode="before")
    @classmethod
    def _end_day(cls, value: Any) -> date | None:
        return partial_date(value, end=True)


class ExtractedAttribute(BaseModel):
    """A literal value the chunk states about one entity (a date of birth, a founding year), kept as written."""

    subject: str = Field(description="Name of the entity it is about, exactly as in `entities`")
    predicate: str = Field(description="Local name of an ontology datatype property, e.g. birthDate, inception")
    value: str = Field(description="The value exactly as written in the text, e.g. \"12 March 1955\" or \"1955\"")
    confidence: float = Field(description="How sure the extractor is, from 0 to 1")
    start: int | None = Field(default=None, description="Character offset in the chunk where the sentence stating it starts")
    end: int | None = Field(default=None, description="Character offset in the chunk where that sentence ends (exclusive)")


class RefusedSentence(BaseModel):
    """A sentence of the chunk flagged as an injection attempt: it contributes no entities and no relations."""

    start: int = Field(description="Character offset in the chunk where the sentence starts")
    end: int = Field(description="Character offset in the chunk where the sentence ends (exclusive)")
    text: str = Field(description="The sentence, cut to 200 characters")
    reason: str = Field(description="Why it was refused, e.g. 'injection attempt (instruction)'")
    dropped: list[str] = Field(default_factory=list, description="What the extractor found only in this sentence and dropped: "
                                                                 "entity names, and relations as 'subject predicate object'")


class Extraction(BaseModel):
    """Everything extracted from one chunk."""

    entities: list[ExtractedEntity] = Field(default_factory=list, description="Entities mentioned in the chunk")
    relations: list[ExtractedRelation] = Field(default_factory=list, description="Relations stated in the chunk")
    attributes: list[ExtractedAttribute] = Field(default_factory=list,
                                                 description="Literal values (dates) the chunk states about its entities")
    # filled by the extractor, never by a model: left out of the JSON schema the LLM is given
    refused: SkipJsonSchema[list[RefusedSentence]] = Field(
        default_factory=list, description="Sentences of the chunk refused as injection attempts (reported, not extracted)")


class Extractor(Protocol):
    """Turns chunk text into an Extraction; raises ExtractionError (never returns an empty success on failure)."""

    name: str  # recorded as att:extractor, e.g. "llm:llama3.1" or "rules:spacy"

    def extract(self, text: str) -> Extraction: ...
