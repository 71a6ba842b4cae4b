"""The ingest worker process: the rule extractor and the SHACL gate run there, off the server's interpreter lock."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Generic, Sequence, TypeVar, cast

from pyoxigraph import RdfFormat, parse, serialize

from attest.errors import AttestError, ExtractionError
from attest.extract.models import Extraction

log = logging.getLogger("attest.ingest")
T = TypeVar("T")
NQUADS = RdfFormat.N_QUADS  # quads cross the process boundary as N-Quads: ten times cheaper than pickling terms

_extractor = None  # in the worker: the rule extractor and the gate, built once when it starts
_gate = None


class StageWorker:
    """One process, niced, that extracts chunks with the rule extractor and gates document graphs with SHACL.

    In the server these are the CPU-heavy stages of ingestion: run in its own threads they hold the interpreter
    lock that every request needs, and niceness cannot order a lock. The worker starts on first use; if it dies,
    the call is retried once in a new one."""

    def __init__(self, shapes_dir: Path, ontology_dir: Path, known_labels: list[tuple[str, str]], nice: int,
                 timeout_s: float = 20.0, modules_off: Sequence[str] = ()) -> None:
        self._args = (str(shapes_dir), str(ontology_dir), known_labels, nice, list(modules_off))
        self.timeout_s = timeout_s
        self._pool, self._answered = self._start(), False

    def _start(self) -> ProcessPoolExecutor:
        # spawn, not fork: the server's threads (and RocksDB's) must not be copied mid-flight into the child
        return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_initialize,
                                   initargs=self._args)

    def call(self, function: Callable[..., T], *args, fallback: Callable[[], T] | None = None) -> T:
        """`function(*args)` in the worker. A worker that dies is replaced and the call retried once. A new worker
        that has not answered within `timeout_s` (stuck starting) is replaced and `fallback()` runs here instead:
        an ingest never waits on a worker's start for longer than that."""
        for attempt in (1, 2):
            try:
                if fallback is not None and not self._answered:
                    self._pool.submit(os.getpid).result(timeout=self.timeout_s)
                    self._answered = True
                return self._pool.submit(function, *args).result()
            except BrokenProcessPool:
                log.warning("the ingest worker process died; starting a new one (attempt %d)", attempt)
                self._restart()
            except TimeoutError:
                log.warning("the ingest worker process did not start within %g s: this stage runs in the server, "
                            "and a new worker starts", self.timeout_s)
                self._restart()
                assert fallback is not None  # only the wait for a new worker's start has a timeout
                return fallback()
        raise AttestError("the ingest worker process died twice on this document; nothing of it was stored")

    def submit(self, function: Callable[..., T], *args) -> WorkerCall[T]:
        """`function(*args)` started in the worker now, answered later (stages of coming documents overlap with
        this process's work); a call the worker died on is run again by `call` when its result is asked for."""
        try:
            future = self._pool.submit(function, *args)
        except BrokenProcessPool:  # it died since the last call: its calls in flight run again when asked for
            log.warning("the ingest worker process died; starting a new one")
            self._restart()
            future = self._pool.submit(function, *args)
        return WorkerCall(self, future, function, args)

    def _restart(self) -> None:
        self.close()
        self._pool, self._answered = self._start(), False

    def pid(self) -> int:
        """The worker process's id (started if it was not)."""
        return self.call(os.getpid)

    def close(self) -> None:
        """Stop the worker without waiting for it (it holds nothing: the server commits): one still importing its
        engines would otherwise hold up the server's shutdown for seconds."""
        processes = list(getattr(self._pool, "_processes", {}).values())  # CPython's executor keeps them there
        calls = getattr(self._pool, "_call_queue", None)
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
            process.join(5)
        if calls is not None:  # a call still being written to the worker (past the pipe's 64 KB) would block its
            calls.cancel_join_thread()  # feeder thread for ever, and the interpreter's exit joins that thread


class WorkerCall(Generic[T]):
    """A call running in the worker (StageWorker.submit)."""

    def __init__(self, worker: StageWorker, future: Future, function: Callable[..., T], args: tuple) -> None:
        self.worker, self.future, self.function, self.args = worker, future, function, args
        self.pool = worker._pool

    def result(self) -> T:
        while True:
            try:
                return cast(T, self.future.result(timeout=0.5))
            except TimeoutError:
                if self.worker._pool is not self.pool:  # replaced: its calls in flight may never be answered
                    break
            except (BrokenProcessPool, CancelledError):
                break
        log.warning("the ingest worker process died under a call; running it again in a new one")
        return self.worker.call(self.function, *self.args)


class OffloadedExtractor:
    """The rule extractor, run in the worker (same name, same results); `local` runs here when the worker hangs."""

    def __init__(self, worker: StageWorker, local) -> None:
        self.worker, self.local, self.name = worker, local, local.name

    def extract_many(self, texts: list[str]) -> list[Extraction | ExtractionError]:
        found = self.worker.call(_extract, texts, fallback=lambda: _extract(texts, self.local))
        return [Extraction.model_validate(value) if ok else ExtractionError(value) for ok, value in found]


class OffloadedGate:
    """The SHACL gate, run in the worker: the document's quads go there and the kept ones come back; `local` runs
    here when the worker hangs."""

    def __init__(self, worker: StageWorker, local) -> None:
        self.worker, self.local = worker, local

    def gate(self, quads):
        from attest.ingest.shacl_gate import GateResult

        nquads = serialize(quads, format=NQUADS)
        kept, findings = self.worker.call(_run_gate, nquads, fallback=lambda: _run_gate(nquads, self.local))
        return GateResult(list(parse(kept, format=NQUADS)), findings)


def offload(pipeline) -> StageWorker:
    """Move the pipeline's SHACL gate, and its extractor if it is the rule extractor, into a worker process (an LLM
    extractor waits on the network, which holds no lock, and stays)."""
    from attest.extract.rules import RuleExtractor

    settings, extractor = pipeline.settings, pipeline.extractor
    known = list(extractor.known.items()) if isinstance(extractor, RuleExtractor) else []
    worker = StageWorker(settings.shapes_dir, settings.ontology_dir, known, settings.ingest_nice,
                         modules_off=settings.ontology_modules_off)
    if isinstance(extractor, RuleExtractor):
        pipeline.extractor = OffloadedExtractor(worker, extractor)
    pipeline.gate = OffloadedGate(worker, pipeline.gate)
    return worker


# in the worker process --------------------------------------------------------------------------------------------

def _initialize(shapes_dir: str, ontology_dir: str, known_labels: list[tuple[str, str]], nice: int,
                modules_off: list[str]) -> None:
    global _extractor, _gate
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="parent-watch", daemon=True).start()
    from attest.extract.ontology_terms import load_terms
    from attest.extract.rules import RuleExtractor
    from attest.ingest.shacl_gate import ShaclGate

    if nice and hasattr(os, "nice"):
        os.nice(nice)  # the whole process: the kernel gives the server's request threads the cores first
    _extractor = RuleExtractor(load_terms(Path(ontology_dir), modules_off), known_labels)
    _gate = ShaclGate.from_dirs(Path(shapes_dir), Path(ontology_dir), modules_off)


def _exit_with_parent(parent: int, every_s: float = 1.0) -> None:
    """End this worker when the process that started it is gone (killed with -9: nothing told the worker, and its
    own end of the call queue's pipe keeps it waiting for calls forever)."""
    while os.getppid() == parent:
        time.sleep(every_s)
    os._exit(0)


def _extract(texts: list[str], extractor=None) -> list[tuple[bool, Any]]:
    """(True, the extraction's fields) or (False, the error's message) per text."""
    chosen = extractor or _extractor
    assert chosen is not None  # in the worker, _initialize built it
    out: list[tuple[bool, Any]] = []
    for text in texts:
        try:
            out.append((True, chosen.extract(text).model_dump(mode="json")))
        except ExtractionError as exc:
            out.append((False, exc.message))
    return out


def _gate_mask(nquads: bytes) -> tuple[list[bool], list]:
    """The gate over a document's quads: for each quad, in order, whether it is kept; and the findings (the caller
    holds the quads already: nothing is parsed back)."""
    assert _gate is not None  # in the worker, _initialize built it
    quads = list(parse(nquads, format=NQUADS))
    result = _gate.gate(quads)
    kept = set(result.kept)
    return [q in kept for q in quads], result.findings


def _run_gate(nquads: bytes, gate=None) -> tuple[bytes, list]:
    chosen = gate or _gate
    assert chosen is not None  # in the worker, _initialize built it
    result = chosen.gate(list(parse(nquads, format=NQUADS)))
    return cast(bytes, serialize(result.kept, format=NQUADS)), result.findings  # bytes: no output file given
