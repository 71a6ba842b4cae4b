"""Conversation memory: one store per namespace whose documents are the turns (episodes), written in the background by
the ingest pipeline (entities and facts with provenance to the turn and span), listed, exported and purged whole."""

from __future__ import annotations

import logging
import re
import shutil
import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Callable, Iterator, TypeVar
from urllib.parse import quote

from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, serialize

from attest.errors import AttestError
from attest.extract.llm import LlmExtractor, llm_available
from attest.ingest.pipeline import DocumentReport, IngestPipeline, document_id
from attest.ingest.session import open_session
from attest.ontology import load_ontology
from attest.store.results import solutions
from attest.proxy.enrich import Enricher, Precomputed
from attest.proxy.secrets import mask_secrets
from attest.proxy.turn_dates import TurnDated
from attest.settings import Settings
from attest.store import EmbeddedStore, fulltext
from attest.vocab import ATT, RDF, XSD, Iris

log = logging.getLogger("attest.proxy")
T = TypeVar("T")
NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
CONVERSATION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
MEMORY_DIR = "memory"
PURGED_PREFIX = ".purged-"
EXPORT_FORMATS = {"trig": (RdfFormat.TRIG, "application/trig"), "nquads": (RdfFormat.N_QUADS, "application/n-quads")}

LAST_TURN = f"""SELECT ?c ?e ?i WHERE {{ GRAPH ?g {{ ?e <{ATT}conversation> ?c ; <{ATT}turnIndex> ?i }} }}
ORDER BY DESC(?i) LIMIT 1"""
COUNTS = f"""SELECT (COUNT(DISTINCT ?e) AS ?turns) (COUNT(DISTINCT ?c) AS ?conversations) WHERE {{
  GRAPH ?g {{ ?e a <{ATT}Episode> ; <{ATT}conversation> ?c }} }}"""
ENTITY_COUNT = f"""SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ GRAPH ?g {{ ?m <{ATT}denotes> ?x }} }}"""


@dataclass(frozen=True)
class StoredTurn:
    """A turn as stored: its document source, masked text and episode record (kept for its enrichment), and the day
    it was said (the reference of its relative dates, and the start of what it does not date)."""

    source: str
    data: bytes
    episode: list[Quad]
    day: date


@dataclass(frozen=True)
class Turn:
    """One turn to remember: who said it, what, and when it was said."""

    role: str  # user | assistant
    text: str
    event_time: datetime


class _SharedLock:
    """Many users of a namespace at once (reads, the writer), or its purge alone."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._users = 0
        self._purging = False

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._purging:
                self._cond.wait()
            self._users += 1
        try:
            yield
        finally:
            with self._cond:
                self._users -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            while self._purging:
                self._cond.wait()
            self._purging = True
            while self._users:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._purging = False
                self._cond.notify_all()


class Namespace:
    """One namespace's memory: an embedded store (with its full-text index) under data_dir/memory/<name>/."""

    def __init__(self, name: str, settings: Settings, iris: Iris) -> None:
        self.name, self.iris = name, iris
        self.settings = settings.model_copy(update={"data_dir": settings.data_dir / MEMORY_DIR / name})
        self.store: EmbeddedStore | None = EmbeddedStore(self.settings.store_path, iris)
        load_ontology(self.store, settings.ontology_dir, iris, settings.ontology_modules_off)  # types, labels and shapes read the class hierarchy
        self.lock = _SharedLock()
        self._pipeline: IngestPipeline | None = None
        self._enricher: Enricher | None = None

    @contextmanager
    def reading(self) -> Iterator[EmbeddedStore | None]:
        """The store while it is in use (None once purged)."""
        with self.lock.shared():
            yield self.store

    def open_writer(self) -> None:
        """The rule pipeline that stores turns and, when the LLM answers and the setting allows, the enricher
        (the first request of a namespace opens them, so its first turn does not wait for them)."""
        with self.reading() as store:
            if store is not None:
                self._open_writer(store)

    def _open_writer(self, store: EmbeddedStore) -> None:
        if self._pipeline is not None:
            return
        self._pipeline = open_session(store, self.settings, offline=True, reason=False).pipeline
        if self.settings.proxy_memory_extractor == "auto" and llm_available(self.settings):
            self._enricher = Enricher(LlmExtractor(self.settings, self._pipeline.terms), self.settings)

    def pipeline(self) -> IngestPipeline:
        """The pipeline that stores turns (with the rule extractor)."""
        self.open_writer()
        assert self._pipeline is not None, "the namespace was purged"
        return self._pipeline

    # writing ----------------------------------------------------------------------------

    def store_turns(self, conversation: str, turns: list[Turn]) -> list[StoredTurn]:
        """Each turn (secrets masked) as a document with its episode record, extracted by the offline rules so that
        it is recallable at once; returns what was stored, for the LLM enrichment that may follow."""
        written: list[StoredTurn] = []
        with self.reading() as store:
            if store is None:
                return written
            self._open_writer(store)
            index, previous = self._last_turn(store, conversation)
            for turn in turns:
                text, _ = mask_secrets(turn.text)
                if not text.strip():
                    continue
                index += 1
                source = f"{conversation}-{index}-{turn.role}"
                doc_id = document_id(source)
                stored = StoredTurn(source, text.encode("utf-8"),
                                    episode_quads(self.iris, self.name, conversation, doc_id, index, turn, text, previous),
                                    turn.event_time.date())
                if self._ingest(stored) is not None:
                    written.append(stored)
                    previous = doc_id
        return written

    def _ingest(self, turn: StoredTurn, extractor: Precomputed | None = None) -> DocumentReport | None:
        assert self._pipeline is not None
        inner = extractor if extractor is not None else self._pipeline.extractor
        try:
            with self._pipeline.extracting_with(TurnDated(inner, turn.day)) if inner is not None else nullcontext():
                return self._pipeline.ingest_bytes(turn.data, source=turn.source, media_type="text/plain",
                                                   extra_quads=turn.episode, replace_other_extraction=True)
        except AttestError as exc:  # an empty or unreadable turn: nothing to remember
            log.warning("memory: turn %s not stored: %s", turn.source, exc.message)
            return None

    @property
    def enriches(self) -> bool:
        return self._enricher is not None

    def extract_with_llm(self, turn: StoredTurn) -> Precomputed | None:
        """The LLM's extraction of a stored turn (no store access: runs beside the writer)."""
        return self._enricher.extract(turn.data, turn.source, turn.day) if self._enricher is not None else None

    def enrich(self, turn: StoredTurn, extraction: Precomputed) -> None:
        """Replace the turn's rule extraction with the LLM's, in one commit; the rules again if that fails."""
        with self.reading() as store:
            if store is None:
                return
            report = self._ingest(turn, extraction)
            if report is not None and report.status == "failed":
                log.warning("memory: the LLM extraction of %s was not stored (%s); it keeps the rules'", turn.source,
                            report.message)
                self._ingest(turn)

    def _last_turn(self, store: EmbeddedStore, conversation: str) -> tuple[int, str | None]:
        conversation_node = NamedNode(conversation_iri(self.iris, conversation))
        rows = list(solutions(store.query(LAST_TURN, substitutions={"c": conversation_node})))
        if not rows:
            return -1, None
        return int(rows[0]["i"].value), rows[0]["e"].value.rsplit("/", 1)[-1]

    # reading ----------------------------------------------------------------------------

    def counts(self) -> dict[str, object]:
        with self.reading() as store:
            if store is None:
                return {"name": self.name, "turns": 0, "conversations": 0, "entities": 0}
            row = next(iter(solutions(store.query(COUNTS))))
            entities = next(iter(solutions(store.query(ENTITY_COUNT))))["n"]
            return {"name": self.name, "turns": int(row["turns"].value), "conversations": int(row["conversations"].value),
                    "entities": int(entities.value)}

    def export(self, fmt: str) -> bytes:
        """Every graph but the ontology, as TriG or N-Quads."""
        ontology = NamedNode(self.iris.ontology_graph)
        with self.reading() as store:
            if store is None:
                return b""
            quads = [q for q in store.quads() if q.graph_name != ontology]
        return serialize(quads, format=EXPORT_FORMATS[fmt][0]) or b""

    def close(self) -> None:
        if self.store is not None:
            self.store.close()  # first: a clean close records its epoch in the index (fulltext_step.py)
            fulltext.close_for(self.store)
            self.store = None


def conversation_iri(iris: Iris, conversation: str) -> str:
    return f"{iris.base}conversation/{quote(conversation, safe='')}"


def episode_quads(iris: Iris, namespace: str, conversation: str, doc_id: str, index: int, turn: Turn, text: str,
                  previous: str | None) -> list[Quad]:
    """The episode record of a turn, in its document's graph: role, turn index, conversation, namespace, event and
    ingest time, its text; the NEXT link from the conversation's previous turn."""
    graph, doc = NamedNode(iris.document_graph(doc_id)), NamedNode(iris.document(doc_id))

    def att(name: str) -> NamedNode:
        return NamedNode(ATT + name)

    def when(moment: datetime) -> Literal:
        return Literal(moment.astimezone(timezone.utc).isoformat(), datatype=NamedNode(XSD + "dateTime"))

    quads = [
        Quad(doc, NamedNode(RDF + "type"), att("Episode"), graph),
        Quad(doc, att("role"), Literal(turn.role), graph),
        Quad(doc, att("turnIndex"), Literal(str(index), datatype=NamedNode(XSD + "integer")), graph),
        Quad(doc, att("conversation"), NamedNode(conversation_iri(iris, conversation)), graph),
        Quad(doc, att("namespace"), Literal(namespace), graph),
        Quad(doc, att("eventTime"), when(turn.event_time), graph),
        Quad(doc, att("ingestTime"), when(datetime.now(timezone.utc)), graph),
        Quad(doc, att("text"), Literal(text), graph),
    ]
    if previous is not None:
        quads.append(Quad(NamedNode(iris.document(previous)), att("next"), doc, graph))
    return quads


class Memory:
    """The namespaces on disk, opened on first use; one background writer stores turns in arrival order."""

    def __init__(self, settings: Settings, iris: Iris) -> None:
        self.settings, self.iris = settings, iris
        self.root = settings.data_dir / MEMORY_DIR
        self.root.mkdir(parents=True, exist_ok=True)
        for leftover in self.root.glob(PURGED_PREFIX + "*"):  # a purge interrupted after its rename
            shutil.rmtree(leftover, ignore_errors=True)
        self._open: dict[str, Namespace] = {}
        self._lock = threading.Lock()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgproxy-memory")
        self._llm_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgproxy-enrich")  # LLM calls only
        self._pending = 0
        self._pending_lock = threading.Lock()

    def names(self) -> list[str]:
        on_disk = {p.name for p in self.root.iterdir() if p.is_dir() and NAMESPACE.match(p.name)}
        return sorted(on_disk | set(self._open))

    def exists(self, name: str) -> bool:
        return name in self._open or (self.root / name).is_dir()

    def namespace(self, name: str) -> Namespace:
        with self._lock:
            ns = self._open.get(name)
            if ns is None:
                ns = self._open[name] = Namespace(name, self.settings, self.iris)
                self._writer.submit(ns.open_writer)
            return ns

    def remember(self, namespace: str, conversation: str, turns: list[Turn]) -> Future[list[StoredTurn] | None]:
        """Store the turns in the background (after the reply has gone), then have the LLM enrich them beside the
        writer; `pending` counts what is not written or not enriched yet."""
        return self._submit(self._writer, f"turns of conversation {conversation} in namespace {namespace} were not "
                            "stored", self._write, namespace, conversation, turns)

    def _write(self, namespace: str, conversation: str, turns: list[Turn]) -> list[StoredTurn]:
        ns = self.namespace(namespace)
        stored = ns.store_turns(conversation, turns)
        if ns.enriches:
            for turn in stored:
                self._submit(self._llm_worker, f"the LLM extraction of turn {turn.source} failed", self._extract, ns, turn)
        return stored

    def _extract(self, ns: Namespace, turn: StoredTurn) -> None:
        if (extraction := ns.extract_with_llm(turn)) is not None:
            self._submit(self._writer, f"the LLM extraction of turn {turn.source} was not stored", ns.enrich, turn,
                         extraction)

    def _submit(self, pool: ThreadPoolExecutor, failure: str, work: Callable[..., T], *args: Any) -> Future[T | None]:
        """`work(*args)` in `pool`, counted as pending until it ends; a background job has no caller to tell, so a
        failure is logged whole and the pool lives on."""
        self._count(+1)

        def job() -> T | None:
            try:
                return work(*args)
            except Exception:
                log.exception("memory: %s", failure)
                return None
            finally:
                self._count(-1)
        return pool.submit(job)

    def _count(self, delta: int) -> None:
        with self._pending_lock:
            self._pending += delta

    @property
    def pending(self) -> int:
        with self._pending_lock:
            return self._pending

    def drain(self) -> None:
        """Wait until every turn submitted so far is written (its enrichment may still follow)."""
        self._writer.submit(lambda: None).result()

    def purge(self, name: str) -> bool:
        """Remove the namespace whole: pending writes first, then one rename makes it disappear, then the files go."""
        if not self.exists(name):
            return False
        self.drain()
        with self._lock:
            ns = self._open.pop(name, None)
            if ns is not None:
                with ns.lock.exclusive():
                    ns.close()
            directory = self.root / name
            if not directory.is_dir():
                return ns is not None
            trash = self.root / f"{PURGED_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
            directory.rename(trash)
        shutil.rmtree(trash, ignore_errors=True)
        return True

    def close(self) -> None:
        self._llm_worker.shutdown(wait=True, cancel_futures=True)
        self._writer.shutdown(wait=True)
        with self._lock:
            for ns in self._open.values():
                ns.close()
            self._open.clear()


def valid_namespace(name: str) -> bool:
    return bool(NAMESPACE.match(name))


def valid_conversation(value: str) -> bool:
    return bool(CONVERSATION.match(value))


__all__ = ["EXPORT_FORMATS", "Memory", "Namespace", "StoredTurn", "Turn", "conversation_iri", "episode_quads", "valid_conversation",
           "valid_namespace"]
