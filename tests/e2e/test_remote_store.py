"""The remote store against a real Oxigraph server: GraphStore contract, safe bindings, atomic replacement, crash-safe
bulk loads, faults (server down at start and mid-request), deadlines, two Attest processes over one store, the
closure stamp across processes, and `attest migrate`."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, RdfFormat, parse

from attest.errors import BadRequest, QueryTimeout, RdfSyntaxError, SparqlSyntaxError, StoreUnavailable
from attest.main import create_app
from attest.reasoner import Reasoner
from attest.settings import load_settings
from attest.store import EmbeddedStore, open_store
from attest.store.remote import LOADING_INTO, RemoteStore
from attest.vocab import Iris
from tests.conftest import REPO, free_port
from tests.remote_support import OxigraphServer, serve_over, wait_ready

EX = "http://example.org/"
G = EX + "g"


def _settings(tmp_path: Path, server: OxigraphServer, **extra):
    return load_settings(None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology",
                         shapes_dir=REPO / "shapes", queries_dir=REPO / "queries",
                         **server.store_settings(), **extra)


@pytest.fixture
def server(oxigraph_server):
    oxigraph_server.clear()
    return oxigraph_server


@pytest.fixture
def remote(tmp_path, server):
    settings = _settings(tmp_path, server)
    store = open_store(settings)
    assert isinstance(store, RemoteStore)
    yield store
    store.close()


def q(s, p, o, g=G):
    return Quad(NamedNode(EX + s), NamedNode(EX + p), o if not isinstance(o, str) else NamedNode(EX + o),
                NamedNode(g) if g else DefaultGraph())


# --- the GraphStore contract ------------------------------------------------------------------------------------

def test_settings_pick_the_store_and_missing_urls_are_a_clear_error(tmp_path, server):
    assert isinstance(open_store(load_settings(None, data_dir=tmp_path / "d")), EmbeddedStore)
    with pytest.raises(Exception, match="ATTEST_STORE_QUERY_URL"):
        open_store(load_settings(None, data_dir=tmp_path / "d", store="sparql"))


def test_graph_writes_sizes_quads_dump_and_backup(remote, tmp_path):
    assert remote.add([q("a", "p", "b"), q("a", "p", Literal("x")), q("d", "p", "e", g=None)]) == 3
    assert remote.graphs() == [G] and remote.has_graph(G) and not remote.has_graph(EX + "none")
    assert remote.graph_sizes() == {"": 1, G: 2}
    assert remote.replace_graph(G, [q("c", "p", "d", g=None)]) == 1
    assert set(remote.quads(G)) == {q("c", "p", "d")}
    assert set(remote.quads("")) == {q("d", "p", "e", g=None)}
    assert remote.drop_graph(G) and not remote.drop_graph(G)
    remote.add([q("a", "p", "b")])
    remote.backup(tmp_path / "bk")
    dumped = set(parse((tmp_path / "bk" / "dataset.nq").read_bytes(), RdfFormat.N_QUADS))
    assert dumped == {q("a", "p", "b"), q("d", "p", "e", g=None)}
    with pytest.raises(Exception, match="already exists"):
        remote.backup(tmp_path / "bk")


def test_load_is_parsed_first_so_a_syntax_error_writes_nothing(remote, tmp_path):
    with pytest.raises(RdfSyntaxError):
        remote.load(b"<http://a> <http://b> <http://c> .\n<http://a> <http://b> \"open .\n", RdfFormat.N_TRIPLES,
                    graph=G)
    bad = tmp_path / "bad.nt"
    bad.write_text("<http://a> <http://b> <http://c> .\n" * 100 + "<http://a> <http://b> \"open .\n")
    with pytest.raises(RdfSyntaxError, match="bad.nt:101"):
        remote.bulk_load_file(bad, graph=G)
    assert remote.graph_sizes() == {}


def test_bindings_are_checked_terms_never_text(remote):
    remote.add([q("a", "p", Literal('x"} ; DROP ALL ; #')), q("b", "p", Literal("y"))])
    rows = list(remote.query("SELECT ?s WHERE { ?s ?p ?o }", substitutions={"o": Literal('x"} ; DROP ALL ; #')}))
    assert [r["s"].value for r in rows] == [EX + "a"]
    assert remote.graph_sizes() == {G: 2}  # nothing was dropped
    # a bound variable inside a subquery is bound there too, as pyoxigraph's substitution does
    sub = "SELECT ?s WHERE { { SELECT ?s ?o WHERE { ?s ?p ?o FILTER(STR(?o) = STR(?v)) } } }"
    assert [r["s"].value for r in remote.query(sub, substitutions={"v": Literal("y")})] == [EX + "b"]
    with pytest.raises(BadRequest, match="not a SPARQL variable"):
        remote.query("SELECT * WHERE { ?s ?p ?o }", substitutions={"o } DROP ALL": Literal("x")})
    from pyoxigraph import BlankNode
    with pytest.raises(BadRequest, match="only IRIs and literals"):
        remote.query("SELECT * WHERE { ?s ?p ?o }", substitutions={"o": BlankNode()})


def test_the_servers_refusals_are_clean_errors(remote):
    with pytest.raises(SparqlSyntaxError, match="invalid SPARQL query"):
        remote.query("SELEC ?x")
    with pytest.raises(SparqlSyntaxError, match="invalid SPARQL update"):
        remote.update("INSERT DATA { <http://a> }")
    remote.add([q("a", "p", "b")])
    with pytest.raises(BadRequest, match="nothing was changed"):
        remote.update(f"INSERT DATA {{ GRAPH <{G}> {{ <{EX}x> <{EX}p> <{EX}y> }} }} ; CREATE GRAPH <{G}>")
    assert remote.graph_sizes() == {G: 1}


def test_graph_replacement_is_atomic_to_a_concurrent_reader(remote):
    old = [q(f"s{i}", "p", "o") for i in range(300)]
    new = [q(f"t{i}", "p", "o") for i in range(200)]
    remote.replace_graph(G, old)
    seen: set[int] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.add(remote._size(NamedNode(G)))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(30):
            remote.replace_graph(G, new if i % 2 == 0 else old)
    finally:
        stop.set()
        reader.join()
    assert seen <= {200, 300} and seen, seen  # never empty, never a mix


# --- bulk loads and their markers -------------------------------------------------------------------------------

def test_bulk_load_goes_in_chunks_and_an_error_inside_rolls_back(tmp_path, server):
    store = RemoteStore(_settings(tmp_path, server, store_chunk_quads=7), Iris("https://w3id.org/attest/"))
    data = tmp_path / "d.nt"
    data.write_text("".join(f"<{EX}s{i}> <{EX}p> <{EX}o> .\n" for i in range(50)))
    done: list[int] = []
    assert store.bulk_load_file(data, graph=G, progress=done.append) == 50
    assert done == [7] * 7 + [1]  # eight GSP POSTs
    with pytest.raises(RuntimeError):
        with store.bulk_write_guard([EX + "h"]):
            store.bulk_add([q(f"s{i}", "p", "o", g=EX + "h") for i in range(20)])
            raise RuntimeError("cut")
    assert store.graph_sizes() == {G: 50}  # h emptied, markers gone
    store.close()


def test_a_load_cut_by_a_crash_is_rolled_back_by_the_next_process_once_its_lease_ran_out(tmp_path, server):
    settings = _settings(tmp_path, server, store_lease_s=1.0)
    iris = Iris(settings.base_iri)
    crashed = RemoteStore(settings, iris)
    guard = crashed.bulk_write_guard([EX + "h"])
    guard.__enter__()  # the process dies inside the guard: it never exits
    crashed.bulk_add([q(f"s{i}", "p", "o", g=EX + "h") for i in range(20)])
    # another process starting now leaves a load whose writer still holds its lease alone
    RemoteStore(settings, iris).close()
    assert crashed.graph_sizes().get(EX + "h") == 20
    time.sleep(1.2)
    RemoteStore(settings, iris).close()
    left = crashed.graph_sizes()
    assert EX + "h" not in left and not crashed.query(f"ASK {{ GRAPH ?g {{ ?m <{LOADING_INTO}> ?t }} }}")
    guard.gen.close()  # the "dead" writer's guard, closed here rather than at interpreter exit
    crashed.close()


# --- the app over the remote store: faults and deadlines --------------------------------------------------------

def test_store_down_at_start_then_up_without_a_restart(tmp_path):
    server = OxigraphServer()
    settings = load_settings(None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology",
                             **server.store_settings())
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.get("/health").status_code == 200
        ready = client.get("/ready")
        assert ready.status_code == 503 and server.url in ready.json()["store"]
        sparql = client.get("/sparql", params={"query": "ASK {}"})
        assert sparql.status_code == 503 and "unreachable" in sparql.json()["message"]
        with server:
            deadline = time.monotonic() + 20
            while client.get("/ready").status_code != 200:
                assert time.monotonic() < deadline, client.get("/ready").json()
                time.sleep(0.2)
            assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200


def test_store_down_mid_run_is_503_with_no_partial_write_and_service_resumes(tmp_path):
    location = tmp_path / "ox"
    server = OxigraphServer(location).start()
    port = server.port
    settings = load_settings(None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology",
                             **server.store_settings())
    try:
        with TestClient(create_app(settings), base_url="http://localhost") as client:
            assert client.post("/documents", json={"text": "Oxigraph is a database.", "name": "a.txt"}).status_code == 201
            server.stop()
            down = client.post("/documents", json={"text": "RocksDB is a store.", "name": "b.txt"})
            assert down.status_code == 503 and "unreachable" in down.json()["message"]
            assert client.get("/sparql", params={"query": "SELECT * { ?s ?p ?o }"}).status_code == 503
            server = OxigraphServer(location)
            server.port, server.url = port, f"http://127.0.0.1:{port}"
            server.start()
            docs = client.get("/documents").json()
            assert docs["count"] == 1 and docs["documents"][0]["source"] == "a.txt"  # b.txt left nothing
            assert client.post("/documents", json={"text": "RocksDB is a store.", "name": "b.txt"}).status_code == 201
    finally:
        server.close()


@pytest.mark.runaway
def test_sparql_proxies_under_the_deadline_and_the_result_limits(tmp_path, server):
    settings = _settings(tmp_path, server, max_result_rows=5)
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        runaway = ("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }")
        started = time.monotonic()
        response = client.get("/sparql", params={"query": runaway, "timeout": "1"})
        assert response.status_code == 503 and "deadline" in response.json()["message"]
        assert time.monotonic() - started < 5
        rows = client.get("/sparql", params={"query": "SELECT ?s ?p ?o { ?s ?p ?o }"},
                          headers={"Accept": "application/sparql-results+json"})
        assert rows.status_code == 200 and rows.headers["X-Attest-Truncated"] == "rows"
        assert len(rows.json()["results"]["bindings"]) == 5
        ask = client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}, headers={"Accept": "text/csv"})
        assert ask.status_code == 200 and ask.text.strip() == "true"


@pytest.mark.runaway
def test_the_servers_own_timeout_parameter_is_sent_when_configured(tmp_path, server):
    store = RemoteStore(_settings(tmp_path, server, store_timeout_param="timeout"), Iris("https://w3id.org/attest/"))
    store.add([q(f"s{i}", "p", "o") for i in range(100)])  # 100^5 rows to count below
    seen: list[str] = []
    store._client.event_hooks["request"].append(lambda request: seen.append(str(request.url)))
    store.query("ASK {}", timeout=2.5)
    assert "timeout=2500" in seen[-1]
    with pytest.raises(QueryTimeout):
        store.query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }",
                    timeout=0.3)
    store.close()


def test_unreachable_store_names_its_url(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(StoreUnavailable, match=url):
        open_store(load_settings(None, data_dir=tmp_path, store="sparql", store_query_url=f"{url}/query",
                                 store_update_url=f"{url}/update"))


# --- several processes over one store ---------------------------------------------------------------------------

def _serve(tmp_path: Path, server: OxigraphServer, name: str) -> tuple[subprocess.Popen, str]:
    return serve_over(server, tmp_path / name)


def test_two_processes_ingesting_and_reading_at_once_lose_no_acknowledged_write(tmp_path, server):
    procs = [_serve(tmp_path, server, f"p{i}") for i in range(2)]
    try:
        urls = [url for _, url in procs]
        texts = [(f"doc{i}.txt", f"Product{i} is a database. Product{i} uses Engine{i}.") for i in range(10)]

        def ingest(i: int) -> tuple[str, int]:
            name, text = texts[i]
            response = httpx.post(f"{urls[i % 2]}/documents", json={"text": text, "name": name}, timeout=120)
            httpx.get(f"{urls[(i + 1) % 2]}/documents", timeout=60).raise_for_status()  # reads interleave
            return name, response.status_code

        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(ingest, range(len(texts))))
        acknowledged = {name for name, status in results if status == 201}
        assert acknowledged, results
        for url in urls:
            listed = httpx.get(f"{url}/documents", params={"limit": 100}, timeout=60).json()
            assert acknowledged <= {d["source"] for d in listed["documents"] if d["status"] == "done"}, url
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=20)


def test_answers_in_one_process_see_what_another_process_wrote(tmp_path, server):
    """A process remembers its lookups between requests; a write by another process must still show in its next
    answer (it remembers nothing across a change of the store's write token)."""
    procs = [_serve(tmp_path, server, f"p{i}") for i in range(2)]
    try:
        (_, a), (_, b) = procs
        question = {"query": "What does Zorvex use?"}
        assert httpx.post(f"{a}/documents", json={"text": "Zorvex is a database. Zorvex uses RocksDB.", "name": "one.txt"},
                          timeout=120).status_code == 201
        before = httpx.post(f"{a}/context", json=question, timeout=60).json()
        assert "RocksDB" in before["context"] and "Quillstore" not in before["context"]
        assert httpx.post(f"{b}/documents", json={"text": "Zorvex is a database. Zorvex uses Quillstore.",
                                                  "name": "two.txt"}, timeout=120).status_code == 201
        after = httpx.post(f"{a}/context", json=question, timeout=60).json()
        assert "Quillstore" in after["context"], after["context"]
        # the same fact stated by one more document: its support, which A remembered, grows
        counts = {r["text"]: r["document_count"] for r in after["relations"]}
        assert httpx.post(f"{b}/documents", json={"text": "Zorvex is a database. Zorvex uses RocksDB.", "name": "three.txt"},
                          timeout=120).status_code == 201
        again = {r["text"]: r["document_count"] for r in httpx.post(f"{a}/context", json=question, timeout=60).json()["relations"]}
        uses = next(t for t in counts if "RocksDB" in t)
        assert again[uses] == counts[uses] + 1, (counts, again)
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=20)


def test_the_closure_stamp_notices_another_processs_writes(tmp_path, server):
    settings = _settings(tmp_path, server)
    iris = Iris(settings.base_iri)
    a_store, b_store = RemoteStore(settings, iris), RemoteStore(settings, iris)
    rdfs_sub = NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
    rdf_type = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    graph = EX + "doc"

    def facts(cls: str) -> list[Quad]:
        return [Quad(NamedNode(EX + "Cat"), rdfs_sub, NamedNode(EX + cls), NamedNode(graph)),
                Quad(NamedNode(EX + "tom"), rdf_type, NamedNode(EX + "Cat"), NamedNode(graph))]

    a_store.replace_graph(graph, facts("Animal"))
    a, b = Reasoner(a_store, iris, settings), Reasoner(b_store, iris, settings)
    a.materialize()
    inferred = NamedNode(iris.inferred_graph)
    tom_is = f"ASK {{ GRAPH <{iris.inferred_graph}> {{ <{EX}tom> a <{EX}%s> }} }}"
    assert a_store.query(tom_is % "Animal")
    # process B replaces the graph with as many triples (a size check alone would miss it) and reasons
    b_store.replace_graph(graph, facts("Pet"))
    b.materialize()
    assert b_store.query(tom_is % "Pet") and not b_store.query(tom_is % "Animal")
    # process A's closure in memory still says Animal; its next run sees the stored stamp is not its own
    a_store.replace_graph(EX + "other", [Quad(NamedNode(EX + "x"), NamedNode(EX + "p"), NamedNode(EX + "y"),
                                              NamedNode(EX + "other"))])
    report = a.materialize()
    assert graph in report.changed_graphs  # re-read although its size did not change
    assert a_store.query(tom_is % "Pet") and not a_store.query(tom_is % "Animal")
    assert inferred  # the inferred graph is the one asked above
    a_store.close()
    b_store.close()


# --- migrate ----------------------------------------------------------------------------------------------------

def test_migrate_copies_the_embedded_store_and_refuses_a_full_target(tmp_path, server):
    data = tmp_path / "data"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology")}
    src = tmp_path / "people.trig"
    src.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n<{G}> {{ <{EX}c> <{EX}p> \"x\"@en . <{EX}d> <{EX}p> <{EX}e> . }}\n")
    cli = [sys.executable, "-m", "attest.cli", "--data-dir", str(data)]
    subprocess.run([*cli, "load", str(src)], cwd=REPO, env=env, check=True, capture_output=True, timeout=120)
    # the class statistics (graph/statistics, as a quiet period or an ingest's compaction writes them) are exact
    # for the embedded store only: never copied
    iris = Iris("https://w3id.org/attest/")
    writer = EmbeddedStore(data / "store", iris)
    assert writer.refresh_statistics()
    writer.close()
    embedded = EmbeddedStore(data / "store", iris, read_only=True)
    expected = {q for q in embedded.quads() if q.graph_name != NamedNode(iris.statistics_graph)}
    sizes = {g: n for g, n in embedded.graph_sizes().items() if g != iris.statistics_graph}
    embedded.close()
    done = subprocess.run([*cli, "migrate", "--to", server.url], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"to {server.url}" in done.stdout
    remote = RemoteStore(_settings(tmp_path, server), Iris("https://w3id.org/attest/"))
    assert remote.graph_sizes() == sizes and set(remote.quads()) == expected
    again = subprocess.run([*cli, "migrate", "--to", server.url], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 1 and "--force" in again.stderr
    assert remote.graph_sizes() == sizes
    remote.close()


def test_cli_query_update_stats_and_export_over_the_remote_store(tmp_path, server):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
           "ATTEST_STORE": "sparql", "ATTEST_STORE_QUERY_URL": f"{server.url}/query",
           "ATTEST_STORE_UPDATE_URL": f"{server.url}/update"}
    cli = [sys.executable, "-m", "attest.cli", "--data-dir", str(tmp_path / "data")]

    def run(*args):
        return subprocess.run([*cli, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)

    assert run("update", f"INSERT DATA {{ GRAPH <{G}> {{ <{EX}a> <{EX}p> <{EX}b> }} }}").returncode == 0
    out = run("query", "SELECT ?o WHERE { ?s ?p ?o }", "--format", "csv")
    assert out.returncode == 0 and f"{EX}b" in out.stdout
    bad = run("query", "SELEC ?o")
    assert bad.returncode == 1 and "invalid SPARQL query" in bad.stderr and "Traceback" not in bad.stderr
    stats = run("stats")
    assert stats.returncode == 0 and G in stats.stdout
    exported = run("export", "-", "--format", "nquads")
    assert exported.returncode == 0 and f"<{EX}a> <{EX}p> <{EX}b> <{G}> ." in exported.stdout


def test_serve_with_workers_runs_several_processes_over_the_remote_store(tmp_path, server):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTEST_")}
    env.update({"ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"), "ATTEST_SHAPES_DIR": str(REPO / "shapes"),
                "ATTEST_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "ATTEST_LLM_MAX_RETRIES": "0"})
    cli = [sys.executable, "-m", "attest.cli", "--data-dir", str(tmp_path / "data")]
    refused = subprocess.run([*cli, "serve", "--workers", "2"], cwd=REPO, env=env, capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode == 1 and "needs a remote store" in refused.stderr
    env.update({"ATTEST_STORE": "sparql", "ATTEST_STORE_QUERY_URL": f"{server.url}/query",
                "ATTEST_STORE_UPDATE_URL": f"{server.url}/update"})
    port = free_port()
    proc = subprocess.Popen([*cli, "serve", "--workers", "2", "--port", str(port)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc, 120)
        created = httpx.post(f"{url}/documents", json={"text": "Oxigraph is a database.", "name": "w.txt"}, timeout=120)
        assert created.status_code == 201, created.text
        for _ in range(6):  # whichever worker answers, it reads the write
            assert httpx.get(f"{url}/documents", timeout=30).json()["count"] == 1
        children = subprocess.run(["ps", "-ww", "--ppid", str(proc.pid), "-o", "args="], capture_output=True, text=True)
        assert sum("multiprocessing.spawn" in line for line in children.stdout.splitlines()) == 2, children.stdout
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_server_syntax_error_is_told_with_the_parser_message_never_by_fetching():
    from attest.errors import SparqlSyntaxError
    from attest.store.remote import parser_message

    def told(text: str, kind: str) -> str:
        with pytest.raises(SparqlSyntaxError) as info, parser_message(text, kind):
            raise SparqlSyntaxError(f"invalid SPARQL {kind}: the server's own words")
        return str(info.value)

    assert "error at 1:" in told("SELECT ?x WHERE { ?x ?y }", "query")
    assert "error at 1:" in told("INSERT DATA { <http://a> }", "update")
    # LOAD / SERVICE are never run locally (pyoxigraph would fetch): the server's message stands
    assert "server's own words" in told("LOAD <http://127.0.0.1:9/x> ; INSERT DATA { <http://a> }", "update")
    assert "server's own words" in told("SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } } }", "query")
