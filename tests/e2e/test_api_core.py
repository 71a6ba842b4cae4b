"""App core: health and readiness, write authorization, body limit, ontology reload over HTTP."""

from __future__ import annotations

import shutil

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from attest.api import errors, limits

from tests.conftest import REPO, LiveServer

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)


def test_health_and_ready(client):
    assert client.get("/health").json() == {"status": "alive"}
    ready = client.get("/ready")
    assert ready.status_code == 200 and ready.json()["ontology_loaded"] is True


def test_ontology_graph_loaded_at_start(client, iris):
    sizes = client.get("/stats").json()["graphs"]
    assert sizes[iris.ontology_graph] > 50


def test_body_over_limit_is_413(client, settings):
    big = b"x" * (settings.max_body_bytes + 1)
    r = client.post("/ontology/reload", content=big)
    assert r.status_code == 413 and r.json()["limit"] == settings.max_body_bytes


def test_streamed_body_over_limit_is_413(settings):
    """A chunked body (no Content-Length) is cut off as soon as the bytes received pass the limit."""
    app = FastAPI()
    errors.install(app)
    limits.install(app, settings)

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    def chunks(n):
        for _ in range(n):
            yield b"x" * 65536

    with TestClient(app, base_url="http://localhost") as c:
        assert c.post("/echo", content=chunks(2)).json() == {"size": 131072}
        r = c.post("/echo", content=chunks(settings.max_body_bytes // 65536 + 2))
        assert r.status_code == 413 and r.json()["error"] == "PayloadTooLarge"


@pytest.fixture
def editable_ontology(settings, tmp_path):
    target = tmp_path / "ontology"
    shutil.copytree(REPO / "ontology", target)
    return settings.model_copy(update={"ontology_dir": target}), target


def test_reload_with_broken_file_changes_nothing(editable_ontology):
    from attest.main import create_app

    settings, directory = editable_ontology
    with TestClient(create_app(settings), base_url="http://localhost") as c:
        before = c.get("/stats").json()["graphs"]
        (directory / "zz-broken.ttl").write_text("@prefix ex: <http://example.org/> .\nex:a ex:b .\n")
        r = c.post("/ontology/reload")
        assert r.status_code == 422
        assert "zz-broken.ttl:2:" in r.json()["message"]
        assert c.get("/stats").json()["graphs"] == before
        (directory / "zz-broken.ttl").write_text(
            "@prefix ex: <http://example.org/> .\nex:NewClass a <http://www.w3.org/2002/07/owl#Class> .\n")
        r = c.post("/ontology/reload")
        assert r.status_code == 200
        after = c.get("/stats").json()["graphs"]
        iri = next(g for g in after if g.endswith("graph/ontology"))
        assert after[iri] == before[iri] + 1


def test_writes_need_the_token_when_one_is_configured(settings):
    from pydantic import SecretStr

    with LiveServer(settings.model_copy(update={"token": SecretStr("t0ken")})) as server:
        assert httpx.post(f"{server.url}/ontology/reload").status_code == 401
        bad = httpx.post(f"{server.url}/ontology/reload", headers={"Authorization": "Bearer wrong"})
        assert bad.status_code == 401 and bad.headers["www-authenticate"] == "Bearer"
        ok = httpx.post(f"{server.url}/ontology/reload", headers={"Authorization": "Bearer t0ken"})
        assert ok.status_code == 200


def test_without_token_only_loopback_may_write():
    from starlette.requests import Request

    from attest.api.deps import require_writer
    from attest.errors import Forbidden
    from attest.settings import load_settings

    def request_from(host, to=b"127.0.0.1:8000"):
        return Request({"type": "http", "headers": [(b"host", to)], "client": (host, 1234)})

    settings = load_settings()
    require_writer(request_from("127.0.0.1"), settings)
    require_writer(request_from("::1", to=b"[::1]:8000"), settings)
    with pytest.raises(Forbidden):
        require_writer(request_from("192.0.2.7"), settings)
    with pytest.raises(Forbidden):  # a loopback connection that addressed a public name: a proxy on this machine
        require_writer(request_from("127.0.0.1", to=b"attest.example.org"), settings)


def test_ontology_reload_re_derives_what_the_edit_changed(editable_ontology):
    """Regression: a reload swapped the TBox but left the inferred graph derived from the old one."""
    from attest.main import create_app

    settings, directory = editable_ontology
    ex = "http://example.org/"
    with TestClient(create_app(settings), base_url="http://localhost") as c:
        data = f"<{ex}a> a <{ex}Widget> ."
        assert c.post("/store", params={"graph": ex + "doc"}, content=data,
                      headers={"Content-Type": "text/turtle"}).status_code in (201, 204)
        ask = {"query": f"ASK {{ GRAPH ?g {{ <{ex}a> a <{ex}Gadget> }} }}"}
        c.post("/reason")
        assert c.get("/sparql", params=ask, headers={"Accept": "application/sparql-results+json"}).json()["boolean"] is False
        (directory / "zz-widgets.ttl").write_text(
            f"<{ex}Widget> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{ex}Gadget> .\n")
        r = c.post("/ontology/reload")
        assert r.status_code == 200 and "reasoning" in r.json()
        assert c.get("/sparql", params=ask, headers={"Accept": "application/sparql-results+json"}).json()["boolean"] is True


def test_an_unchanged_ontology_is_not_written_again(editable_ontology, iris):
    from attest.ontology import load_ontology
    from attest.store import EmbeddedStore

    settings, directory = editable_ontology
    store = EmbeddedStore(settings.store_path, iris)
    load_ontology(store, directory, iris)
    generation = store.generation
    load_ontology(store, directory, iris)  # a restart: same files, blank nodes parsed under new labels
    assert store.generation == generation
    first = sorted(directory.glob("*.ttl"))[0]
    first.write_text(first.read_text(encoding="utf-8").replace('"@en', ' (edited)"@en', 1), encoding="utf-8")
    load_ontology(store, directory, iris)  # same number of triples, one label changed
    assert store.generation > generation
    assert any("(edited)" in q.object.value for q in store.quads(iris.ontology_graph) if hasattr(q.object, "language"))
    store.close()
