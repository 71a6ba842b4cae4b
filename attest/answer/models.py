"""Pydantic models of what /context, /answer and /verify return (every field described)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CitationStatus = Literal["found", "label_match", "asserted", "inferred", "superseded", "not_found", "invalid"]
ClaimFlag = Literal["low_confidence", "removed", "ungrounded"]
Mode = Literal["llm", "extractive", "verify"]


class TraceStep(BaseModel):
    """One derivation step of an inferred triple: the rule and the premises it used."""

    conclusion: list[str] = Field(description="The derived triple as [subject, predicate, object] IRIs")
    rule: str = Field(description="W3C OWL 2 RL rule id, e.g. prp-trp, prp-spo1")
    depth: int = Field(description="Depth of the conclusion (asserted = 0)")
    premises: list[list[str]] = Field(description="Premise triples as [subject, predicate, object] IRIs")


class CitationReport(BaseModel):
    """How one marker resolved against the graph and what it is worth."""

    marker: str = Field(description="The marker as written")
    kind: Literal["entity", "relation"] = Field(description="entity or relation")
    ref: str = Field(description="The marker's payload (id, label or S|P|O)")
    status: CitationStatus = Field(description="found / label_match (entity); asserted / inferred / superseded (relation: asserted, but a newer fact replaced it); not_found; invalid (malformed payload)")
    iri: str | None = Field(default=None, description="Resolved entity IRI (entity citations)")
    label: str | None = Field(default=None, description="Label of the resolved entity, or the fact in words")
    triple: list[str] | None = Field(default=None, description="Resolved relation as [subject, predicate, object] IRIs")
    match: float | None = Field(default=None, description="rapidfuzz similarity 0-100 when resolved by label")
    depth: int | None = Field(default=None, description="0 for an asserted relation, the shallowest derivation depth "
                                                        "for an inferred one")
    confidence: float = Field(description="Score by DESIGN.md's confidence model, 0-1")
    trace: list[TraceStep] = Field(default_factory=list, description="Reasoning trace of an inferred relation (bounded depth)")
    valid_to: str | None = Field(default=None, description="Superseded relation: the last day it held (YYYY-MM-DD)")
    superseded_by: str | None = Field(default=None, description="Superseded relation: the relation id of the newer fact that replaced it")
    superseded_by_triple: list[str] | None = Field(default=None, description="Superseded relation: that newer fact as [subject, predicate, object]")


class ClaimReport(BaseModel):
    """One sentence of the text with its citations."""

    text: str = Field(description="The sentence as written, markers included")
    start: int = Field(description="Offset of the claim in the checked text")
    end: int = Field(description="Offset just past the claim in the checked text")
    confidence: float | None = Field(description="Minimum over its citations; null for an uncited sentence")
    flags: list[ClaimFlag] = Field(default_factory=list, description="low_confidence (<0.5), removed (<0.3), ungrounded (no citation)")
    citations: list[CitationReport] = Field(default_factory=list, description="Its citations, in order")


class VerifyReport(BaseModel):
    """Validation of a text with citation markers."""

    text: str = Field(description="The final text: claims under 0.3 removed")
    original: str = Field(description="The text as given")
    confidence: float = Field(description="Average of cited claims' confidence weighted by their length in words; 0 when nothing is cited")
    flags: list[str] = Field(default_factory=list, description="Summary: ungrounded_claims, low_confidence_claims, removed_claims, no_citations")
    mode: Mode = Field(default="verify", description="llm or extractive for /answer, verify for /verify")
    claims: list[ClaimReport] = Field(description="Every sentence, in order")
    context: str | None = Field(default=None, description="The context the answer was built from (for /answer)")
    answers: list[AnswerItem] = Field(default_factory=list, description="The answers an extractive answer names, in order")
    notes: list[str] = Field(default_factory=list, description="What the service did that the caller should know (fallbacks, neutralized input)")
    sparql: str | None = Field(default=None, description="For /answer: the SPARQL SELECT (on /sparql) whose ?answer "
                                                         "rows hold the answers, the walks of the paths the answer "
                                                         "names; null when no path was found")


class AnswerItem(BaseModel):
    """One answer an extractive answer names: the end of a retrieved path."""

    id: str | None = Field(default=None, description="Entity id (cite as <<entity:ID>>); null for a literal value")
    label: str = Field(description="The entity's label, or the literal's value")
    value: str | None = Field(default=None, description="The literal's lexical form when the answer is a value (a "
                                                        "year, a rating)")
    score: float = Field(description="Score of the best path ending here")


class ContextEntity(BaseModel):
    """An entity in the retrieved context."""

    id: str = Field(description="Entity id (cite as <<entity:ID>>): a minted id, a CURIE or an IRI")
    iri: str = Field(description="Entity IRI")
    label: str = Field(description="Preferred label")
    types: list[str] = Field(description="Classes (ontology local names, else ids)")
    description: str = Field(description="Description from the graph, may be empty")
    score: float = Field(description="Ranking score: the best path through it, else its link similarity")
    hops: int = Field(description="Hops from the nearest entity linked to the query")


class ContextRelation(BaseModel):
    """A fact (between two entities) or an attribute (an entity and a literal value) on a retrieved path."""

    id: str = Field(description="Relation id (cite as <<relation:ID>>)")
    subject: str = Field(description="Subject entity id")
    predicate: str = Field(description="Predicate: an ontology property's local name, else its id (CURIE or IRI)")
    object: str | None = Field(description="Object entity id; null for an attribute")
    value: str | None = Field(default=None, description="The literal's lexical form for an attribute")
    triple: list[str] = Field(description="[subject, predicate, object] IRIs; the object in N-Triples form for an attribute")
    text: str = Field(description="The fact in words")
    status: Literal["asserted", "inferred"] = Field(description="Asserted in a graph, or inferred only")
    depth: int = Field(description="0 when asserted, else the shallowest derivation depth")
    documents: list[str] = Field(description="Ids of (at most three) documents asserting it, the first by id")
    document_count: int = Field(default=0, description="How many documents assert it, counted up to 100")
    document_count_capped: bool = Field(default=False, description="More than 100 documents assert it")
    path: int | None = Field(default=None, description="Index in `paths` of the first path it belongs to")
    valid_from: str | None = Field(default=None, description="First day the fact holds (YYYY-MM-DD), when known")
    valid_to: str | None = Field(default=None, description="Last day the fact holds, when it ended or a newer fact "
                                                           "replaced it")
    time: Literal["current", "past", "future"] = Field(
        default="current", description="Whether it holds on the day asked about (as_of, else today): past and future "
                                       "facts rank lower")
    superseded_by: str | None = Field(default=None, description="Relation id of the newer fact that replaced it, when "
                                                                "one did")


class ContextPath(BaseModel):
    """A chain of facts from an entity the question names to a candidate answer."""

    relations: list[str] = Field(description="Relation ids in walking order")
    start: str = Field(description="Id of the linked entity it starts from")
    end: str | None = Field(description="Id of the entity it ends at; null when it ends at a value")
    value: str | None = Field(default=None, description="The value it ends at, for an attribute")
    label: str = Field(description="Label of its end (or the value)")
    score: float = Field(description="Path score: link x predicate relevance per hop x hub dampening x coverage of the question")
    sparql: str | None = Field(default=None, description="SPARQL SELECT that walks this path's predicates from its "
                                                         "start entity over the union default graph; its ?answer rows "
                                                         "are every end the walk reaches, this one included")


class ContextLink(BaseModel):
    """A span of the question linked to entities (several when they share the label)."""

    text: str = Field(description="The span as written")
    start: int = Field(description="Offset of the span in the query")
    end: int = Field(description="Offset just past the span")
    entities: list[str] = Field(description="Ids of the entities the span names")
    score: float = Field(description="Link score 0-1 (similarity, case and commonness)")
    ambiguous: bool = Field(description="Whether several entities share the label (all are candidates)")


class ContextSource(BaseModel):
    """A source snippet (chunk) relevant to the query."""

    chunk: str = Field(description="Chunk IRI")
    document: str | None = Field(description="Document id")
    start: int | None = Field(description="Character offset of the chunk in its document")
    end: int | None = Field(description="Character offset just past the chunk")
    text: str = Field(description="The snippet (sanitized, possibly shortened)")
    score: float = Field(description="Its BM25 score plus what the graph added, the best passage 1")
    bm25_rank: int | None = Field(default=None, description="Its rank by BM25 over the question's words (1 = best); "
                                                            "null when it is not among BM25's first 50")
    bm25_score: float | None = Field(default=None, description="Its BM25 score, the best BM25 hit 1; for a passage "
                                                                "the graph found past BM25's first 50, computed for it "
                                                                "alone")
    graph_rank: int | None = Field(default=None, description="Its rank by what the graph added (it is about an entity "
                                                             "the question or a first-hop passage names, or the "
                                                             "walk from them reached it); null when the graph added "
                                                             "nothing")
    graph_score: float | None = Field(default=None, description="What the graph added to its score (the best BM25 "
                                                                 "passage scores 1)")
    bridges: list[str] = Field(default_factory=list, description="Ids of the entities it is about that the question "
                                                                 "or a first-hop passage names (the bridge of a second "
                                                                 "hop), then those that carried the most of the walk's "
                                                                 "mass to it")


class ContextResponse(BaseModel):
    """What /context returns: structured context plus the same as text formatted for an LLM."""

    entities: list[ContextEntity] = Field(description="Ranked entities, at most `limit`: the ends of the best paths first")
    relations: list[ContextRelation] = Field(description="Facts of the best paths, whole paths only, at most `limit`")
    paths: list[ContextPath] = Field(default_factory=list, description="The best paths, best first")
    links: list[ContextLink] = Field(default_factory=list, description="How the query was linked to entities")
    sources: list[ContextSource] = Field(default_factory=list, description="Source snippets")
    context: str = Field(description="Context text for an LLM, within the character budget")
    total_entities: int = Field(description="Entities reached before the limit was applied")
    notes: list[str] = Field(default_factory=list, description="How the passages were ranked when not by BM25 and the graph together (fallbacks)")
