"""The answer service: /context, /answer (LLM or extractive, auto fallback) and /verify over one store."""

from __future__ import annotations

from datetime import date
from typing import Literal

from attest.answer.compose import compose_extractive
from attest.answer.extractive import compose_answer
from attest.answer.ids import Ids, declared_prefixes
from attest.answer.inference import Inference
from attest.answer.llm_answer import llm_answer
from attest.answer.lookup import GraphLookup
from attest.answer.models import AnswerItem, ContextResponse, Mode, VerifyReport
from attest.answer.path_query import context_walk, walks_sparql
from attest.answer.retrieve import STOPWORDS, ContextQuery, Retriever
from attest.answer.verify import Verifier
from attest.errors import ConfigError, ExtractionError, LlmUnavailable
from attest.extract.llm_client import LlmClient, llm_available
from attest.extract.ontology_terms import OntologyTerms, terms_from_store
from attest.settings import Settings
from attest.store import GraphStore, fulltext
from attest.vocab import Iris

AnswerMode = Literal["auto", "llm", "extractive"]


class AnswerService:
    """Retrieval, answer composition and verification wired to a store, the reasoner's derivations and the LLM settings."""

    def __init__(self, store: GraphStore, iris: Iris, settings: Settings, inference: Inference,
                 client: LlmClient | None = None, *, owner: object | None = None) -> None:
        self.settings = settings
        ids = answer_ids(settings, iris)
        self.lookup = GraphLookup(store, iris, ids=ids, owner=owner, label_predicates=label_predicates(settings, ids))
        self.retriever = Retriever(self.lookup, inference, settings.context_budget_chars)
        self.verifier = Verifier(self.lookup, inference, settings.max_trace_depth)
        self._client = client

    def context(self, request: ContextQuery) -> ContextResponse:
        return self.retriever.context(request)

    def verify(self, text: str, as_of: date | None = None) -> VerifyReport:
        return self.verifier.verify(text, as_of=as_of)

    def answer(self, question: str, *, mode: AnswerMode = "auto", max_hops: int = 2, limit: int = 20,
               as_of: date | None = None) -> VerifyReport:
        """Answer from the graph as of a day (default today); the text is verified before it is returned, whichever
        mode wrote it."""
        context = self.retriever.context(ContextQuery(query=question, max_hops=max_hops, limit=limit, as_of=as_of))
        notes: list[str] = []
        text: str | None = None
        used: Mode = "extractive"
        answers: list[AnswerItem] = []
        if mode == "llm" or (mode == "auto" and self._llm_reachable(notes)):
            try:
                text, findings = llm_answer(self._llm(), question, context)
                used = "llm"
                if kinds := sorted({f.kind for f in findings} - {"unicode"}):
                    notes.append(f"the question was sanitized before it reached the model ({', '.join(kinds)})")
            except (LlmUnavailable, ExtractionError) as exc:
                if mode == "llm":
                    raise
                notes.append(f"LLM failed ({exc.message}); answered extractively from graph facts")
        if text is None:
            text, answers = compose_answer(question, context, fulltext.for_store(self.lookup.store), self.lookup,
                                           self._terms(), STOPWORDS)
        report = self.verifier.verify(text, as_of=as_of)
        return report.model_copy(update={"mode": used, "context": context.context, "notes": notes, "answers": answers,
                                         "sparql": self.answer_sparql(context, answers)})

    def answer_sparql(self, context: ContextResponse, answers: list[AnswerItem]) -> str | None:
        """The query whose rows hold the answers: the walks of the paths that end at them (an LLM's answer, which
        names no answers here, is read from the same best paths an extractive answer would name)."""
        if not answers:
            answers = compose_extractive(context)[1]
        walks = []
        relations = {r.id: r for r in context.relations}
        for item in answers:
            path = next((p for p in context.paths if (p.end, p.value) == (item.id, item.value)), None)
            seed = self.lookup.ids.iri(path.start) if path is not None else None
            if path is not None and seed is not None:
                walks.append(context_walk(path, relations, seed))
        return walks_sparql(walks) if walks else None

    def _terms(self) -> OntologyTerms | None:
        """The store's ontology classes (what "which university" asks for), read once per write generation."""
        graph = self.lookup.iris.ontology_graph
        return self.lookup.memo.many("graph ontology terms", [graph],
                                     lambda gs: {g: terms_from_store(self.lookup.store, g) for g in gs})[graph]

    def _llm(self) -> LlmClient:
        if self._client is None:
            self._client = LlmClient(self.settings)
        return self._client

    def _llm_reachable(self, notes: list[str]) -> bool:
        if llm_available(self.settings):
            return True
        notes.append(f"no LLM answered at {self.settings.llm_base_url}; answered extractively from graph facts")
        return False


def answer_ids(settings: Settings, iris: Iris) -> Ids:
    """Citable ids under the prefixes the ontology files declare and the `prefixes` setting."""
    return Ids(iris, declared_prefixes(settings.ontology_dir, settings.prefixes))


def label_predicates(settings: Settings, ids: Ids) -> list[str]:
    """The `label_predicates` setting as IRIs (CURIEs expanded with the declared prefixes)."""
    out = []
    for ref in settings.label_predicates:
        iri = ids.iri(ref) if ":" in ref else None
        if iri is None:
            raise ConfigError(f"label_predicates: {ref!r} is neither an IRI nor a CURIE with a declared prefix")
        out.append(iri)
    return out
