"""Security of a service on localhost (issue 30): cross-site writes, DNS rebinding, outbound requests from SPARQL.

Each refusal is checked for its status and message and for what did not happen: the store's graphs and sizes are
the same, the fake LLM saw no request, and a listener on a free loopback port, standing for any host a query could
aim at, saw no request. A positive control in each group shows that the same request, made as allowed, does change
the store, reach the LLM or reach the listener, so that no test passes for a reason other than the guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx
import httpx2
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pydantic import SecretStr
from pyoxigraph import Literal, NamedNode, Quad, QueryResultsFormat, Store

from attest.errors import ConfigError
from attest.main import create_app
from attest.settings import load_settings
from tests.conftest import REPO, LiveServer

EVIL = "https://evil.example"
MARK = "<urn:attack:s> <urn:attack:p> \"pwned\""
INSERT = f"INSERT DATA {{ {MARK} }}"
ASK_MARK = f"ASK {{ {{ {MARK} }} UNION {{ GRAPH ?g {{ {MARK} }} }} }}"
SPARQL_JSON = "application/sparql-results+json"
CHAT = {"model": "test-model", "messages": [{"role": "user", "content": "What does Oxigraph use?"}]}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Listener:
    """An HTTP server on a free loopback port that records every request. It answers SPARQL queries over its own
    small pyoxigraph store (GET ?query=, or POST) and Turtle to anything else; `fail` makes it answer an error page
    whose body must never come back to a client."""

    SECRET = "listener-secret-body-7f3a"

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.fail: int | None = None
        self.store = Store()
        self.store.add(Quad(NamedNode("urn:remote:a"), NamedNode("urn:remote:p"), NamedNode("urn:remote:b")))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _handler(self):
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _answer(self, body: bytes = b"") -> None:
                listener.requests.append((self.command, self.path))
                if listener.fail:
                    self._send(listener.fail, "text/html", f"<h1>{listener.SECRET}</h1>".encode())
                    return
                query = parse_qs(urlsplit(self.path).query).get("query", [None])[0]
                kind = self.headers.get("content-type", "").split(";")[0]
                if query is None and kind == "application/x-www-form-urlencoded":
                    query = parse_qs(body.decode()).get("query", [None])[0]
                elif query is None and kind == "application/sparql-query":
                    query = body.decode()
                if query is None:
                    self._send(200, "text/turtle", b"<urn:loaded:s> <urn:loaded:p> <urn:loaded:o> .\n")
                    return
                result = listener.store.query(query)
                self._send(200, SPARQL_JSON, result.serialize(format=QueryResultsFormat.JSON))

            def _send(self, status: int, media_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", media_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer(self.rfile.read(int(self.headers.get("content-length") or 0)))

        return Handler

    def __enter__(self) -> "Listener":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    with Listener() as server:
        yield server


def in_process(settings, **update) -> TestClient:
    return TestClient(create_app(settings.model_copy(update=update)), base_url="http://localhost")


def fingerprint(client) -> tuple:
    """What the store holds, as far as an attack could change it: every graph's size, the marker triple, documents."""
    graphs = client.get("/stats").json()["graphs"]
    marked = client.get("/sparql", params={"query": ASK_MARK}, headers={"Accept": SPARQL_JSON}).json()["boolean"]
    documents = client.get("/documents").json()["count"]
    return graphs, marked, documents


def marked(client) -> bool:
    return client.get("/sparql", params={"query": ASK_MARK}, headers={"Accept": SPARQL_JSON}).json()["boolean"]


# cross-site writes --------------------------------------------------------------------------------------------

FORM_WRITES = [  # what a plain HTML form on another site can send to each route that writes
    ("/sparql", {"data": {"update": INSERT}}),
    ("/documents", {"files": {"file": ("evil.txt", b"Oxigraph is written in Rust.", "text/plain")}}),
    ("/store", {"files": {"file": ("evil.ttl", MARK.encode() + b" .", "text/turtle")}}),
    ("/reason", {"data": {"x": "1"}}),
    ("/ontology/reload", {"content": b"x", "headers": {"Content-Type": "text/plain"}}),
]
CROSS_SITE = [  # (headers a browser adds, words of the refusal)
    ({"Origin": EVIL}, "evil.example"),
    ({"Origin": "null"}, "'null'"),  # a sandboxed frame, a data: URL
    ({"Sec-Fetch-Site": "cross-site"}, "Sec-Fetch-Site: cross-site"),  # no Origin
    ({"Sec-Fetch-Site": "same-site"}, "Sec-Fetch-Site: same-site"),
    ({}, "X-Requested-With"),  # an old browser: neither header; a form cannot add X-Requested-With
]


@pytest.mark.parametrize("path, request_kwargs", FORM_WRITES, ids=[p for p, _ in FORM_WRITES])
def test_cross_site_form_posts_change_nothing(client, path, request_kwargs):
    before = fingerprint(client)
    params = {"graph": "urn:attack:g"} if path == "/store" else None
    for headers, words in CROSS_SITE:
        sent = {**request_kwargs, "headers": {**request_kwargs.get("headers", {}), **headers}}
        response = client.post(path, params=params, **sent)
        assert response.status_code == 403, (headers, response.text)
        assert response.json()["error"] == "CrossSiteRefused" and words in response.json()["message"], headers
    assert fingerprint(client) == before


def test_the_same_write_from_a_script_of_an_allowed_page_goes_through(client):
    """The controls: what the refusals above refuse is what changes the store when it comes from the UI."""
    own_page = client.post("/sparql", data={"update": INSERT},
                           headers={"Origin": "http://localhost", "X-Requested-With": "attest"})
    assert own_page.status_code == 204, own_page.text
    assert marked(client)
    dev_server = client.post("/sparql", content=f"DELETE DATA {{ {MARK} }}",  # a page of localhost:5173 (cors_origins)
                             headers={"Origin": "http://localhost:5173", "Content-Type": "application/sparql-update"})
    assert dev_server.status_code == 204 and not marked(client)
    curl = client.post("/documents", files={"file": ("a.txt", b"Oxigraph uses RocksDB.", "text/plain")},
                       headers={"X-Requested-With": "curl"})
    assert curl.status_code == 201 and client.get("/documents").json()["count"] == 1


def test_reads_sent_as_forms_need_no_header_but_no_foreign_page_may_post_them(client):
    """A query posted as a form is a read: SPARQL clients send it so; a foreign page still may not post it."""
    query = {"query": "ASK {}"}
    assert client.post("/sparql", data=query, headers={"Accept": SPARQL_JSON}).json() == {"head": {}, "boolean": True}
    assert client.post("/sparql", data=query, headers={"Origin": EVIL}).status_code == 403
    assert client.get("/sparql", params=query, headers={"Origin": EVIL, "Accept": SPARQL_JSON}).status_code == 200


@pytest.fixture
def proxied(settings, fake_llm):
    from tests.proxy_support import proxy_settings

    with in_process(proxy_settings(settings, fake_llm)) as client:
        yield client, fake_llm


@pytest.mark.parametrize("headers", [
    pytest.param({"Origin": EVIL, "Content-Type": "text/plain"}, id="foreign-origin"),
    pytest.param({"Origin": "null", "Content-Type": "text/plain"}, id="origin-null"),
    pytest.param({"Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}, id="sec-fetch-site"),
    pytest.param({"Content-Type": "text/plain"}, id="form-content-type"),
    pytest.param({"Origin": EVIL, "Content-Type": "application/json"}, id="foreign-origin-json"),
])
def test_a_foreign_page_cannot_spend_the_llm_key(proxied, headers):
    client, fake = proxied
    fake.reply("Oxigraph uses RocksDB.")
    response = client.post("/v1/chat/completions", content=json.dumps(CHAT), headers=headers)
    assert response.status_code == 403, response.text
    assert "error" in response.json() and response.json()["error"]["type"]  # OpenAI's error shape under /v1
    assert fake.chat_requests == [] and fake.pending() == 1


def test_the_chat_proxy_answers_a_local_client(proxied):
    client, fake = proxied
    fake.reply("Oxigraph uses RocksDB.")
    response = client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200, response.text
    assert len(fake.chat_requests) == 1


def test_cors_allows_the_listed_origins_and_no_other(client):
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    local = client.options("/sparql", headers={"Origin": "http://127.0.0.1:3000", **preflight})
    assert local.status_code == 200 and local.headers["access-control-allow-origin"] == "http://127.0.0.1:3000"
    foreign = client.options("/sparql", headers={"Origin": EVIL, **preflight})
    assert "access-control-allow-origin" not in foreign.headers
    read = client.get("/stats", headers={"Origin": EVIL})
    assert read.status_code == 200 and "access-control-allow-origin" not in read.headers


# DNS rebinding ----------------------------------------------------------------------------------------------------


REBOUND = [  # what a page whose DNS name now points at 127.0.0.1 sends, with its own name in Host
    ("GET", "/stats", {}),
    ("GET", "/", {}),
    ("GET", "/sparql", {"params": {"query": "ASK {}"}}),
    ("POST", "/sparql", {"content": INSERT, "headers": {"Content-Type": "application/sparql-update"}}),
    ("POST", "/documents", {"json": {"text": "Oxigraph is written in Rust.", "name": "evil.txt"}}),
    ("POST", "/reason", {}),
    ("POST", "/mcp", {"json": INITIALIZE, "headers": MCP_HEADERS}),
]


def test_a_rebound_host_is_refused_on_reads_and_writes(client):
    before = fingerprint(client)
    for method, path, kwargs in REBOUND:
        kwargs = dict(kwargs)
        headers = {**kwargs.pop("headers", {}), "Host": "evil.example:8000"}
        response = client.request(method, path, headers=headers, **kwargs)
        assert response.status_code == 421, (path, response.text)
        assert response.json()["error"] == "MisdirectedRequest" and "allowed_hosts" in response.json()["message"]
    assert fingerprint(client) == before


def test_a_rebound_host_cannot_reach_the_llm(proxied):
    client, fake = proxied
    fake.reply("x")
    response = client.post("/v1/chat/completions", json=CHAT, headers={"Host": "attacker.example"})
    assert response.status_code == 421 and response.json()["error"]["code"] == "misdirected_request"
    assert fake.chat_requests == []


def test_host_allow_list_over_real_http(settings):
    """Loopback names with any port, and the configured public names, pass; anything else gets 421."""
    with LiveServer(settings.model_copy(update={"allowed_hosts": ["attest.example.org"]})) as server:
        for host in ("localhost", "localhost:1234", "127.0.0.1:8000", "[::1]:80", "ATTEST.example.org",
                     "attest.example.org:443"):
            assert httpx.get(f"{server.url}/health", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example", "attest.example.org.evil.example", "127.0.0.2", "localhost:x", "[::1"):
            response = httpx.get(f"{server.url}/health", headers={"Host": host})
            assert response.status_code == 421, host
        wrote = httpx.post(f"{server.url}/sparql", content=INSERT, headers={
            "Host": "evil.example", "Content-Type": "application/sparql-update"})
        assert wrote.status_code == 421
        assert httpx.get(f"{server.url}/sparql", params={"query": ASK_MARK},
                         headers={"Accept": SPARQL_JSON}).json()["boolean"] is False


def test_without_a_token_writes_through_a_public_name_are_refused(settings):
    """Behind a reverse proxy on this machine every client is a loopback one: the Host tells a public request."""
    with in_process(settings, allowed_hosts=["attest.example.org"]) as client:
        before = fingerprint(client)
        public = {"Host": "attest.example.org", "Content-Type": "application/sparql-update"}
        response = client.post("/sparql", content=INSERT, headers=public)
        assert response.status_code == 403 and "needs the token" in response.json()["message"]
        assert client.get("/stats", headers={"Host": "attest.example.org"}).status_code == 200  # reads are served
        assert fingerprint(client) == before
    with in_process(settings, allowed_hosts=["attest.example.org"], token=SecretStr("s3cret")) as client:
        response = client.post("/sparql", content=INSERT, headers={**public, "Authorization": "Bearer s3cret"})
        assert response.status_code == 204 and marked(client)


# outbound requests from SPARQL --------------------------------------------------------------------------------------


def service_queries(url: str) -> list[str]:
    """SERVICE written every way pyoxigraph reads it: each one, run by pyoxigraph, sends a request to `url`."""
    port_escaped = url.replace("127.0.0.1", "\\u0031\\u0032\\u0037.0.0.1")
    return [
        f"SELECT * WHERE {{ SERVICE <{url}/sparql> {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ ?s ?p ?o SERVICE SILENT <{url}/sparql> {{ ?s ?p ?x }} }}",  # the outer bindings
        f"select * where {{ ?s ?p ?o service\n# a comment\n<{url}/sparql> {{ ?s ?p ?x }} }}",
        f"SELECT * WHERE {{ ?s ?p ?o SERVICESILENT<{url}/sparql>{{ ?s ?p ?x }} }}",
        f"SELECT * WHERE {{ ?s ?p trueSERVICE <{url}/sparql> {{ }} }}",
        f"PREFIX remote: <{url}/> SELECT * WHERE {{ SERVICE remote:sparql {{ ?s ?p ?o }} }}",
        f"PREFIX : <{url}/sparql> SELECT * WHERE {{ ?s ?p ?o SERVICE:{{ ?s ?p ?x }} }}",
        f"SELECT * WHERE {{ SERVICE <{port_escaped}/sparql> {{ ?s ?p ?o }} }}",
        # the lexer would read `<?p&&'>` as an IRI and the rest up to the last quote as a string
        f"SELECT * WHERE {{ ?s ?p ?o FILTER(!(?s<?p&&'>'=?o)) SERVICE <{url}/sparql> {{ }} FILTER(?o!='') }}",
        # ... or `<?p#>`, whose # starts a comment for pyoxigraph and the ''' after it a long string for the lexer
        f"SELECT * WHERE {{ ?s ?p ?o FILTER(!(?s<?p#>'''\n)) SERVICE <{url}/sparql> {{ }}\n# '''\n}}",
        # ... or `<?p&&(?o>`, which hides a parenthesis from the lexer's count of them
        f"SELECT * WHERE {{ ?s ?p ?o FILTER(?s<?p&&(?o>?s)&&?s<?o#>'''\n) SERVICE <{url}/sparql> {{ }}\n# '''\n}}",
        f"BASE <{url}/> SELECT * WHERE {{ ?s ?p ?o SERVICE <sparql> {{ ?s ?p ?x }} }}",
        f"SELECT * WHERE {{ VALUES ?x {{ <{url}/sparql> }} SERVICE ?x {{ ?s ?p ?o }} }}",
    ]


def test_the_listener_is_reached_by_pyoxigraph_itself(listener):
    """The control: each SERVICE form refused below does send a request when pyoxigraph runs it unchecked (but the
    last, SERVICE ?x, which pyoxigraph 0.5 refuses itself as an unbound variable; a later version may not)."""
    store = Store()
    store.add(Quad(NamedNode("urn:a"), NamedNode("urn:p"), NamedNode("urn:o")))
    store.add(Quad(NamedNode("urn:a"), NamedNode("urn:p"), Literal(True)))
    reached = []
    for query in service_queries(listener.url)[:-1]:
        before = len(listener.requests)
        try:
            list(store.query(query, use_default_graph_as_union=True))
        except (OSError, RuntimeError):
            pass
        reached.append(len(listener.requests) > before)
    assert all(reached), reached


@pytest.mark.parametrize("index", range(13))
def test_service_aimed_at_a_local_listener_sends_nothing(client, listener, index):
    query = service_queries(listener.url)[index]
    for response in (client.get("/sparql", params={"query": query}),
                     client.post("/sparql", content=query, headers={"Content-Type": "application/sparql-query"})):
        assert response.status_code == 400, response.text
        assert response.json()["error"] == "OutboundRefused" and "nothing was sent" in response.json()["message"]
    assert listener.requests == []


@pytest.mark.parametrize("update", [
    "LOAD <{url}/data.ttl>",
    "LOAD SILENT <{url}/data.ttl> INTO GRAPH <urn:g>",
    "INSERT DATA {{ <urn:a> <urn:p> <urn:o> }} ;\nLOADSILENT<{url}/data.ttl>",
    "INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE <{url}/sparql> {{ ?s ?p ?o }} }}",
])
def test_load_and_service_in_updates_send_nothing_and_write_nothing(client, listener, update):
    before = fingerprint(client)
    response = client.post("/sparql", content=update.format(url=listener.url),
                           headers={"Content-Type": "application/sparql-update"})
    assert response.status_code == 400 and response.json()["error"] == "OutboundRefused", response.text
    assert listener.requests == [] and fingerprint(client) == before


def test_a_target_whose_escape_names_no_character_is_refused_not_a_crash(client):
    response = client.get("/sparql", params={"query": "SELECT * { SERVICE <http://a/\\U0011FFFF> { } }"})
    assert response.status_code == 400 and response.json()["error"] == "OutboundRefused"


def test_the_worker_pool_and_the_in_process_executor_both_refuse(settings, listener):
    query = service_queries(listener.url)[1]
    for in_process_mode in (False, True):
        with in_process(settings, sparql_in_process=in_process_mode) as client:
            assert client.get("/sparql", params={"query": query}).status_code == 400
    assert listener.requests == []


def test_a_named_query_with_service_is_refused_before_it_runs(settings, listener, tmp_path):
    queries = tmp_path / "queries"
    queries.mkdir()
    (queries / "outside.rq").write_text(f"# Reads another endpoint\nSELECT * WHERE {{ SERVICE <{listener.url}/sparql> "
                                        "{ ?s ?p ?o } }\n")
    (queries / "inside.rq").write_text("# Counts\nSELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }\n")
    with in_process(settings, queries_dir=queries) as client:
        response = client.get("/queries/outside")
        assert response.status_code == 500 and "federation_allowlist" in response.json()["message"]
        listed = {q["name"]: q for q in client.get("/queries").json()["queries"]}
        assert "federation_allowlist" in listed["outside"]["error"] and "error" not in listed["inside"]
        assert client.get("/queries/inside").status_code == 200
    assert listener.requests == []


def test_service_through_the_mcp_sparql_query_tool_sends_nothing(settings, listener):
    with LiveServer(settings) as server:
        async def work():
            async with Client(streamable_http_client(f"{server.url}/mcp", http_client=httpx2.AsyncClient())) as mcp:
                for query in service_queries(listener.url)[:2]:
                    result = await mcp.call_tool("sparql_query", {"query": query})
                    assert result.is_error and "federation_allowlist" in result.content[0].text
                good = await mcp.call_tool("sparql_query", {"query": "ASK {}"})
                assert not good.is_error

        anyio.run(work)
    assert listener.requests == []


def cli(settings, *args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attest.cli", "--data-dir", str(settings.data_dir), *args],
                          capture_output=True, text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"), **(env or {})})


@pytest.mark.slow  # three CLI processes
def test_attest_query_and_update_refuse_service_and_load(settings, listener):
    query = cli(settings, "query", service_queries(listener.url)[0])
    assert query.returncode == 1 and "federation_allowlist" in query.stderr, query.stderr
    update = cli(settings, "update", f"LOAD <{listener.url}/data.ttl>")
    assert update.returncode == 1 and "federation_allowlist" in update.stderr, update.stderr
    assert listener.requests == []
    allowed = cli(settings, "update", f"LOAD <{listener.url}/data.ttl> INTO GRAPH <urn:loaded>",
                  env={"ATTEST_FEDERATION_ALLOWLIST": json.dumps([f"{listener.url}/data"])})
    assert allowed.returncode == 0, allowed.stderr
    assert len(listener.requests) == 1  # the control: on the allow-list, LOAD does reach the listener


def test_the_remote_stores_pass_through_sends_nothing(settings, listener, oxigraph_server):
    """With store = sparql the query would go to the Oxigraph server, which would run the SERVICE itself."""
    oxigraph_server.clear()
    remote = settings.model_copy(update=oxigraph_server.store_settings())
    with in_process(remote) as client:
        for query in service_queries(listener.url)[:3]:
            assert client.get("/sparql", params={"query": query}).status_code == 400
        response = client.post("/sparql", content=f"LOAD <{listener.url}/data.ttl>",
                               headers={"Content-Type": "application/sparql-update"})
        assert response.status_code == 400
    assert listener.requests == []
    # allowed, the server runs the SERVICE; the error page it relays is not echoed either
    listener.fail = 500
    with in_process(remote, federation_allowlist=[f"{listener.url}/"]) as client:
        response = client.get("/sparql", params={"query": f"SELECT * {{ SERVICE <{listener.url}/sparql> {{ ?s ?p ?o }} }}"})
        assert response.status_code == 502 and Listener.SECRET not in response.text, response.text
    assert len(listener.requests) == 1


# an allowed federation target -----------------------------------------------------------------------------------


def test_an_allowed_service_target_answers(settings, listener):
    with in_process(settings, federation_allowlist=[f"{listener.url}/sparql"]) as client:
        query = f"SELECT ?o WHERE {{ SERVICE <{listener.url}/sparql> {{ <urn:remote:a> <urn:remote:p> ?o }} }}"
        response = client.get("/sparql", params={"query": query}, headers={"Accept": SPARQL_JSON})
        assert response.status_code == 200, response.text
        assert [b["o"]["value"] for b in response.json()["results"]["bindings"]] == ["urn:remote:b"]
        assert len(listener.requests) == 1
        # the allow-list is a URL prefix: another path of the same host is refused
        other = client.get("/sparql", params={"query": query.replace("/sparql>", "/admin>")})
        assert other.status_code == 400 and len(listener.requests) == 1


def test_an_allowed_target_that_fails_is_told_by_status_and_host(settings, listener):
    listener.fail = 500
    query = f"SELECT * WHERE {{ SERVICE <{listener.url}/sparql> {{ ?s ?p ?o }} }}"
    for in_process_mode in (False, True):  # the query workers' error path and the server's own
        with in_process(settings, federation_allowlist=[f"{listener.url}/"],
                        sparql_in_process=in_process_mode) as client:
            response = client.get("/sparql", params={"query": query})
            assert response.status_code == 502, response.text
            assert response.json()["host"] == listener.url.removeprefix("http://") and response.json()["status"] == 500
            assert Listener.SECRET not in response.text
    with in_process(settings, federation_allowlist=[f"{listener.url}/"]) as client:
        loaded = client.post("/sparql", content=f"LOAD <{listener.url}/data.ttl>",
                             headers={"Content-Type": "application/sparql-update"})
        assert loaded.status_code == 502 and Listener.SECRET not in loaded.text
    assert len(listener.requests) == 3


# a token-protected deployment -----------------------------------------------------------------------------------


@pytest.fixture
def guarded(settings):
    with in_process(settings, token=SecretStr("s3cret")) as client:
        yield client


BEARER = {"Authorization": "Bearer s3cret"}


def test_with_a_token_a_foreign_page_is_refused_even_with_the_token(guarded):
    before = fingerprint(guarded)
    for headers in ({"Origin": EVIL}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        response = guarded.post("/sparql", data={"update": INSERT}, headers={**BEARER, **headers})
        assert response.status_code == 403, response.text
    assert guarded.post("/sparql", data={"update": INSERT}).status_code == 401  # a form without the token
    assert guarded.post("/sparql", data={"update": INSERT}, headers={"Host": "evil.example", **BEARER}).status_code == 421
    assert fingerprint(guarded) == before
    # the token is what a form cannot send: with it, a form's content type needs no X-Requested-With
    assert guarded.post("/sparql", data={"update": INSERT}, headers=BEARER).status_code == 204
    assert marked(guarded)


def test_with_a_token_service_and_load_still_send_nothing(guarded, listener):
    before = fingerprint(guarded)
    load = guarded.post("/sparql", content=f"LOAD <{listener.url}/data.ttl>",
                        headers={**BEARER, "Content-Type": "application/sparql-update"})
    assert load.status_code == 400 and load.json()["error"] == "OutboundRefused"
    query = guarded.get("/sparql", params={"query": service_queries(listener.url)[0]}, headers=BEARER)
    assert query.status_code == 400
    assert listener.requests == [] and fingerprint(guarded) == before


def test_with_a_token_an_allowed_load_fetches(settings, listener):
    with in_process(settings, token=SecretStr("s3cret"), federation_allowlist=[f"{listener.url}/data"]) as client:
        response = client.post("/sparql", content=f"LOAD <{listener.url}/data.ttl> INTO GRAPH <urn:loaded>",
                               headers={**BEARER, "Content-Type": "application/sparql-update"})
        assert response.status_code == 204, response.text
        assert client.get("/sparql", params={"query": "ASK { GRAPH <urn:loaded> { <urn:loaded:s> ?p ?o } }"},
                          headers={"Accept": SPARQL_JSON}).json()["boolean"] is True
    assert len(listener.requests) == 1


def test_with_a_token_mcp_still_checks_host_and_origin(settings):
    with LiveServer(settings.model_copy(update={"token": SecretStr("s3cret")})) as server:
        url = f"{server.url}/mcp"
        rebound = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **BEARER, "Host": "evil.example"})
        assert rebound.status_code == 421
        foreign = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **BEARER, "Origin": EVIL})
        assert foreign.status_code == 403
        assert httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **BEARER}).status_code == 200


# bad settings ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("setting, value", [
    ("federation_allowlist", ["query.wikidata.org"]),
    ("federation_allowlist", ["https://*.wikidata.org/"]),
    ("federation_allowlist", ["query.wikidata.org/sparql"]),
    ("federation_allowlist", ["ftp://example.org/"]),
    ("cors_origins", ["*"]),
    ("cors_origins", ["https://app.example.org/path"]),
    ("allowed_hosts", ["https://attest.example.org"]),
    ("allowed_hosts", ["*.example.org"]),
    ("allowed_hosts", ["attest.example.org:8000"]),
])
def test_a_bad_security_setting_is_refused_at_start_with_its_name(settings, setting, value):
    with pytest.raises(ConfigError) as from_config:
        load_settings(None, **{setting: value})
    assert setting in from_config.value.message
    with pytest.raises(ConfigError) as at_start:  # settings made without validation (model_copy) stop the app too
        create_app(settings.model_copy(update={setting: value}))
    assert setting in at_start.value.message


@pytest.mark.slow
def test_attest_serve_names_the_setting(settings):
    done = cli(settings, "serve", env={"ATTEST_FEDERATION_ALLOWLIST": '["example.org"]'})
    assert done.returncode != 0 and "federation_allowlist" in done.stderr
