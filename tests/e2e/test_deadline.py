"""Deadline executor: runaway queries are killed at the deadline, small ones stay fast, writes are seen, limits hold."""

from __future__ import annotations

import statistics
import threading
import time

import pytest
from pyoxigraph import Literal, NamedNode, Quad, QueryResultsFormat, RdfFormat

from attest.errors import BadRequest, Overloaded, QueryTimeout, SparqlSyntaxError
from attest.sparql.deadline import DeadlineExecutor, resolve_timeout

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # minutes of CPU in 30 MB
MEMORY_HOG = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i"  # about 1 GB a second
SMALL = "SELECT ?o WHERE { ?s <http://example.org/p> ?o } LIMIT 5"
POINT = "SELECT ?o WHERE { <http://example.org/e/42> <http://example.org/p> ?o }"


def _quads(n: int, start: int = 0) -> list[Quad]:
    return [Quad(NamedNode(f"http://example.org/e/{i}"), NamedNode("http://example.org/p"), Literal(f"value {i}"))
            for i in range(start, start + n)]


@pytest.fixture
def loaded(store):
    store.add(_quads(3000))
    return store


@pytest.fixture
def executor(loaded, settings):
    ex = DeadlineExecutor(loaded, settings.model_copy(update={"query_workers": 3}))
    yield ex
    ex.close()


def _pid_alive(pid: int) -> bool:
    """Still running code: neither gone nor a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):  # gone before the open, or reaped between open and read
        return False


def test_runaway_query_is_killed_at_the_deadline(executor):
    executor.execute(SMALL)  # a warm worker, so the deadline measures the query, not a process start
    pids: list[int] = []
    watcher = threading.Timer(0.5, lambda: pids.extend(w.proc.pid for w in executor.pool.busy))
    watcher.start()
    started = time.monotonic()
    with pytest.raises(QueryTimeout) as err:
        executor.execute(RUNAWAY, timeout=1.5)
    elapsed = time.monotonic() - started
    assert 1.4 < elapsed < 3.0
    assert "deadline of 1.5 s" in err.value.message and err.value.status_code == 503
    gone_by = time.monotonic() + 3  # SIGKILL was sent at the deadline; the kernel tears the heap down after it
    while any(_pid_alive(pid) for pid in pids) and time.monotonic() < gone_by:
        time.sleep(0.05)
    assert pids and not any(_pid_alive(pid) for pid in pids)  # its CPU work ended with the process
    assert list(executor.query(POINT))[0]["o"].value == "value 42"  # and the executor keeps serving


def test_small_queries_stay_fast_while_a_runaway_runs(executor):
    for _ in range(3):  # start the workers
        executor.execute(SMALL)
    runaway = threading.Thread(target=lambda: pytest.raises(QueryTimeout, executor.execute, RUNAWAY, timeout=4))
    runaway.start()
    time.sleep(0.3)
    latencies = []
    while runaway.is_alive() and len(latencies) < 150:
        t = time.perf_counter()
        assert len(list(executor.query(POINT if len(latencies) % 2 else SMALL))) >= 1
        latencies.append(time.perf_counter() - t)
    runaway.join()
    assert len(latencies) >= 50
    p95 = statistics.quantiles(latencies, n=20)[-1]
    assert p95 < 0.050, f"p95 {p95 * 1000:.1f} ms while a runaway query ran"


def test_every_acknowledged_write_is_seen_by_the_next_query(executor, loaded):
    for i in range(10):
        loaded.add(_quads(1, start=10_000 + i))
        assert bool(executor.query(f"ASK {{ <http://example.org/e/{10_000 + i}> ?p ?o }}")) is True
        loaded.update(f"DELETE DATA {{ <http://example.org/e/{i}> <http://example.org/p> \"value {i}\" }}")
        assert bool(executor.query(f"ASK {{ <http://example.org/e/{i}> ?p ?o }}")) is False
    loaded.raw.add(_quads(1, start=30_000)[0])  # engines writing through the native store are seen too
    assert bool(executor.query("ASK { <http://example.org/e/30000> ?p ?o }")) is True
    loaded.raw.remove(_quads(1, start=30_000)[0])
    count = next(iter(executor.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")))["n"].value
    assert int(count) == 3000


def test_old_snapshots_are_deleted(executor, loaded, settings):
    for i in range(6):
        loaded.add(_quads(1, start=20_000 + i))
        executor.query(SMALL)
    kept = list((settings.data_dir / "snapshots").iterdir())
    assert 1 <= len(kept) <= 1 + executor.pool.size


def test_rows_over_the_limit_are_cut_and_flagged(executor):
    out = executor.execute("SELECT ?s WHERE { ?s ?p ?o }", max_rows=10, solutions_format=QueryResultsFormat.JSON)
    assert out.rows == 10 and out.truncated == "rows"
    assert out.payload.count(b'"type":"uri"') == 10
    full = executor.execute("SELECT ?s WHERE { ?s ?p ?o } LIMIT 10")
    assert full.rows == 10 and full.truncated is None


def test_bytes_over_the_limit_are_cut_at_a_row_boundary(loaded, settings):
    ex = DeadlineExecutor(loaded, settings.model_copy(update={"max_result_bytes": 4096, "query_workers": 1}))
    try:
        out = ex.execute("CONSTRUCT WHERE { ?s ?p ?o }", triples_format=RdfFormat.TURTLE)
        assert out.truncated == "bytes" and 0 < out.rows < 3000
        triples = ex.execute("CONSTRUCT WHERE { ?s ?p ?o }")
        assert len(triples.payload) <= 4096 and triples.payload.endswith(b" .\n")
    finally:
        ex.close()


def test_saturated_pool_answers_overloaded_with_retry_after(loaded, settings):
    ex = DeadlineExecutor(loaded, settings.model_copy(update={"query_workers": 1}))
    try:
        ex.execute(SMALL)
        runaway = threading.Thread(target=lambda: pytest.raises(QueryTimeout, ex.execute, RUNAWAY, timeout=2))
        runaway.start()
        time.sleep(0.2)
        with pytest.raises(Overloaded) as err:
            ex.execute(SMALL, timeout=0.3)
        assert err.value.status_code == 429 and err.value.detail["retry_after"] >= 1
        runaway.join()
    finally:
        ex.close()


def test_errors_substitutions_and_formats(executor):
    with pytest.raises(SparqlSyntaxError):
        executor.execute("SELECT * WHERE {")
    with pytest.raises(BadRequest):
        executor.execute(SMALL, default_graph=["not an iri"])
    rows = list(executor.query("SELECT ?s ?o WHERE { ?s <http://example.org/p> ?o }",
                               substitutions={"o": Literal('value 7')}))
    assert [r["s"].value for r in rows] == ["http://example.org/e/7"]
    injected = Literal('value 7" } UNION { ?s ?p ?o')
    assert list(executor.query("SELECT ?s ?o WHERE { ?s <http://example.org/p> ?o }", substitutions={"o": injected})) == []
    assert bool(executor.query("ASK { ?s ?p ?o }")) is True
    csv = executor.execute("SELECT ?o WHERE { <http://example.org/e/1> ?p ?o }", solutions_format=QueryResultsFormat.CSV)
    assert csv.payload.splitlines() == [b"o", b"value 1"]


def test_resolve_timeout(settings):
    assert resolve_timeout(settings, None) == settings.query_timeout_s
    assert resolve_timeout(settings, "2.5") == 2.5
    for bad in ("0", "-1", "abc", str(settings.max_query_timeout_s + 1)):
        with pytest.raises(BadRequest):
            resolve_timeout(settings, bad)


def test_endpoint_answers_503_for_a_runaway_and_stays_fast_for_others(settings, iris):
    """Over HTTP on a real server: the runaway gets a clear 503, small queries keep p95 < 50 ms meanwhile."""
    import httpx

    from attest.store import open_store
    from tests.conftest import LiveServer

    seed = open_store(settings)
    seed.add(_quads(3000))
    seed.close()
    with LiveServer(settings) as server, httpx.Client(base_url=server.url, timeout=30) as http:
        for _ in range(3):
            assert http.get("/sparql", params={"query": SMALL}).status_code == 200
        runaway: dict = {}

        def run_away() -> None:
            started = time.monotonic()
            with httpx.Client(base_url=server.url, timeout=30) as own:
                reply = own.get("/sparql", params={"query": RUNAWAY, "timeout": "3"})
            runaway.update(reply=reply, elapsed=time.monotonic() - started)

        thread = threading.Thread(target=run_away)
        thread.start()
        time.sleep(0.3)
        latencies = []
        while thread.is_alive() and len(latencies) < 200:
            t = time.perf_counter()
            reply = http.get("/sparql", params={"query": POINT}, headers={"Accept": "application/sparql-results+json"})
            latencies.append(time.perf_counter() - t)
            assert reply.status_code == 200 and "value 42" in reply.text
        thread.join()
        reply = runaway["reply"]
        assert reply.status_code == 503 and reply.json()["error"] == "QueryTimeout"
        assert "deadline" in reply.json()["message"] and 2.9 < runaway["elapsed"] < 5
        p95 = statistics.quantiles(latencies, n=20)[-1]
        assert len(latencies) >= 50 and p95 < 0.050, f"p95 {p95 * 1000:.1f} ms over {len(latencies)} queries"
        named = http.get("/queries/no-such-query")
        assert named.status_code == 404
        metrics_text = http.get("/metrics").text
        assert 'attest_query_timeouts_total{source="sparql"}' in metrics_text


def test_query_outgrowing_the_worker_memory_is_stopped_clearly(loaded, settings, monkeypatch):
    import attest.sparql.deadline as deadline
    from attest.errors import QueryResourcesExceeded

    monkeypatch.setattr(deadline, "WORKER_MEMORY_BYTES", 900 * 1024**2)  # read by each new worker at its start
    ex = DeadlineExecutor(loaded, settings.model_copy(update={"query_workers": 1}))
    try:
        started = time.monotonic()
        with pytest.raises(QueryResourcesExceeded) as err:
            ex.execute(MEMORY_HOG, timeout=60)
        assert time.monotonic() - started < 50 and "memory" in err.value.message and err.value.status_code == 503
        assert list(ex.query(POINT))[0]["o"].value == "value 42"  # a fresh worker serves the next query
    finally:
        ex.close()


def test_workers_outlive_the_request_thread_that_started_them(executor):
    """Regression: the parent-death signal follows the forking thread, so workers must not die with request threads."""
    starter = threading.Thread(target=lambda: executor.execute(SMALL))
    starter.start()
    starter.join()
    time.sleep(0.5)
    assert executor.pool.idle and all(worker.alive() for worker in executor.pool.idle)
    assert list(executor.query(POINT))[0]["o"].value == "value 42"


def test_event_loop_path_kills_at_the_deadline_and_matches_the_blocking_path(executor):
    import asyncio

    async def scenario():
        await executor.execute_async(SMALL)  # first call: no idle worker yet, so it takes the blocking path
        fast = await executor.execute_async(POINT, solutions_format=QueryResultsFormat.JSON)
        assert fast.payload == executor.execute(POINT, solutions_format=QueryResultsFormat.JSON).payload
        pids = [w.proc.pid for w in executor.pool.idle]
        started = time.monotonic()
        with pytest.raises(QueryTimeout):
            await executor.execute_async(RUNAWAY, timeout=1.0)
        assert time.monotonic() - started < 2.5
        gone_by = time.monotonic() + 3
        while all(_pid_alive(pid) for pid in pids) and time.monotonic() < gone_by:
            await asyncio.sleep(0.05)
        assert not all(_pid_alive(pid) for pid in pids)  # the worker that ran it was killed
        return await executor.execute_async(POINT)

    assert list(asyncio.run(scenario()).to_result())[0]["o"].value == "value 42"


def test_a_cancelled_request_never_leaves_its_reply_for_the_next_query(executor):
    # regression guard for the event-loop path: a client that goes away mid-query must not hand the worker,
    # with the old query's reply still coming, to the next request
    import asyncio

    async def scenario():
        await executor.execute_async(SMALL)
        await executor.execute_async(SMALL)  # now an idle worker and a current snapshot: the loop path
        slow = asyncio.ensure_future(executor.execute_async(RUNAWAY, timeout=30))
        await asyncio.sleep(0.3)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        return [await executor.execute_async(POINT) for _ in range(4)]

    for outcome in asyncio.run(scenario()):
        assert list(outcome.to_result())[0]["o"].value == "value 42"


def test_a_large_reply_is_read_whole_under_uvloop(executor):
    # uvicorn runs uvloop, which makes a descriptor it watches non-blocking: a reply bigger than the pipe's buffer
    # was then read half-written and reported as a dead worker (503) - found by bench/sparql_endpoint.py's q14
    uvloop = pytest.importorskip("uvloop")
    everything = "SELECT ?s ?o WHERE { ?s <http://example.org/p> ?o }"

    async def scenario():
        await executor.execute_async(SMALL)
        await executor.execute_async(SMALL)
        return [await executor.execute_async(everything, solutions_format=QueryResultsFormat.JSON) for _ in range(5)]

    for outcome in uvloop.run(scenario()):
        assert outcome.payload.count(b'"o":') == 3000 and not outcome.truncated


@pytest.mark.parametrize("at_start", [2, 0])
def test_the_app_starts_its_query_workers_with_the_store_open(settings, at_start):
    """`query_workers_at_start` workers start with the app, each with the store's snapshot open: the first queries
    (a named query, /sparql) start no worker and take no snapshot. With 0 they start on the first query, as before."""
    from fastapi.testclient import TestClient

    from attest.main import create_app
    from attest.store import open_store

    seed = open_store(settings)
    seed.add(_quads(100))
    seed.close()
    app = create_app(settings.model_copy(update={"query_workers": 3, "query_workers_at_start": at_start}))
    with TestClient(app, base_url="http://localhost") as client:
        executor = app.state.resources.query_executor
        started = {w.proc.pid for w in executor.pool.idle}
        snapshot = executor.snapshots.current
        assert len(started) == at_start and not executor.pool.busy
        assert all(w.alive() and w.snapshot == snapshot for w in executor.pool.idle)
        assert (snapshot is not None and snapshot.exists()) == bool(at_start)
        named = client.get("/queries/class-counts", headers={"Accept": "application/sparql-results+json"})
        point = client.get("/sparql", params={"query": POINT}, headers={"Accept": "application/sparql-results+json"})
        assert named.status_code == 200 and point.status_code == 200 and "value 42" in point.text
        now = {w.proc.pid for w in executor.pool.idle}
        if at_start:
            assert now == started and executor.snapshots.current == snapshot
        else:
            assert len(now) == 1 and executor.snapshots.current is not None


def test_a_worker_that_cannot_start_with_the_app_leaves_the_app_up(settings, tmp_path, monkeypatch, caplog):
    import attest.sparql.deadline as deadline
    from fastapi.testclient import TestClient

    from attest.main import create_app

    broken = tmp_path / "exits.py"
    broken.write_text("raise SystemExit(3)\n")
    monkeypatch.setattr(deadline, "WORKER_SCRIPT", broken)
    app = create_app(settings)
    with TestClient(app, base_url="http://localhost") as client:
        executor = app.state.resources.query_executor
        assert not executor.pool.idle and not executor.pool.busy and not executor.pool.starting
        assert "query workers not started ahead of the first query" in caplog.text
        monkeypatch.setattr(deadline, "WORKER_SCRIPT", deadline.Path(deadline.__file__).with_name("worker.py"))
        reply = client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"},
                           headers={"Accept": "application/sparql-results+json"})
        assert reply.status_code == 200 and reply.json()["boolean"] is True  # started on demand
