"""A small runner for the W3C SPARQL 1.1 Protocol and Graph Store Protocol manifests against a live endpoint."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from xml.etree import ElementTree

import httpx
from rdflib import RDF, RDFS, Graph, Namespace
from rdflib.collection import Collection
from rdflib.compare import isomorphic

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
HTS = Namespace("http://www.w3.org/2011/http-statusCodes#")
CNT = Namespace("http://www.w3.org/2011/content#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")

STATUS = {"OK": 200, "Created": 201, "NoContent": 204, "BadRequest": 400, "NotFound": 404}
RESULT_TYPES = {"application/sparql-results+json", "application/sparql-results+xml", "text/csv",
                "text/tab-separated-values"}
RDF_TYPES = {"text/turtle": "turtle", "application/n-triples": "nt", "application/rdf+xml": "xml",
             "application/ld+json": "json-ld", "application/n-quads": "nquads", "application/trig": "trig"}
PROTOCOL_MANIFEST = Path("sparql/sparql11/protocol/manifest.ttl")
GSP_MANIFESTS = (Path("sparql/sparql11/graph-store-protocol/manifest-indirect.ttl"),
                 Path("sparql/sparql11/graph-store-protocol/manifest-direct.ttl"))


@dataclass
class Outcome:
    name: str
    passed: bool
    reason: str = ""


@dataclass
class Endpoints:
    """Where the manifest's /sparql/ and /gsp paths live on the server under test."""

    base_url: str
    sparql_path: str = "/sparql"
    gsp_path: str = "/store"
    headers: dict[str, str] | None = None  # e.g. the bearer token for writes

    def url(self, absolute_path: str) -> str:
        if absolute_path.startswith("/sparql/"):
            absolute_path = self.sparql_path + absolute_path[len("/sparql/"):]
            absolute_path = absolute_path.replace(self.sparql_path + "?", self.sparql_path + "?", 1)
        elif absolute_path.startswith("/gsp"):
            absolute_path = self.gsp_path + absolute_path[len("/gsp"):]
        return self.base_url + absolute_path


def _expected_statuses(resp, g: Graph) -> list[tuple[int, int]]:
    """Accepted status ranges, e.g. [(200, 299)] for StatusCode2xx or [(201, 201)] for Created."""
    ranges = []
    for code in g.objects(resp, MF.expectedStatus):
        name = str(code).rsplit("#", 1)[-1]
        if name.startswith("StatusCode") and name.endswith("xx"):
            first = int(name[len("StatusCode")]) * 100
            ranges.append((first, first + 99))
        else:
            ranges.append((STATUS[name], STATUS[name]))
    return ranges


def _headers(node, g: Graph) -> dict[str, str]:
    headers = {}
    for lst in g.objects(node, HT.headers):
        for header in Collection(g, lst):
            headers[str(g.value(header, HT.fieldName)).lower()] = str(g.value(header, HT.fieldValue))
    return headers


def _body(node, g: Graph) -> str | None:
    body = g.value(node, HT.body)
    return None if body is None else str(g.value(body, CNT.chars))


def _media(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _boolean(response: httpx.Response) -> bool | None:
    media = _media(response.headers.get("content-type"))
    if "json" in media:
        return json.loads(response.content).get("boolean")
    if "xml" in media:
        node = ElementTree.fromstring(response.content).find("{http://www.w3.org/2005/sparql-results#}boolean")
        return None if node is None else node.text == "true"
    return None


def _check_response(response: httpx.Response, resp, g: Graph, base: str) -> str:
    """'' when the response meets the manifest's expectations, else why not."""
    ranges = _expected_statuses(resp, g)
    if ranges and not any(lo <= response.status_code <= hi for lo, hi in ranges):
        return f"status {response.status_code}, expected {ranges}: {response.text[:200]}"
    fmt = g.value(resp, MF.expectedFormat)
    media = _media(response.headers.get("content-type"))
    if fmt is not None:
        fmt = str(fmt)
        if fmt == "boolean" and media not in ("application/sparql-results+json", "application/sparql-results+xml"):
            return f"boolean result as {media}"
        if fmt == "tabular" and media not in RESULT_TYPES:
            return f"tabular result as {media}"
        if fmt == "RDF" and media not in RDF_TYPES:
            return f"RDF result as {media}"
    expected_boolean = g.value(resp, MF.expectedBoolean)
    if expected_boolean is not None and _boolean(response) != expected_boolean.toPython():
        return f"boolean {_boolean(response)}, expected {expected_boolean}"
    expected_type = _headers(resp, g).get("content-type")
    if expected_type and _media(expected_type) != media:
        return f"content-type {media}, expected {_media(expected_type)}"
    expected_body = _body(resp, g)
    if expected_body is not None:
        got, want = Graph(), Graph()
        want.parse(data=expected_body, format="turtle", publicID=base)
        got.parse(data=response.content, format=RDF_TYPES.get(media, "turtle"), publicID=base)
        if not isomorphic(got, want):
            return f"body is not isomorphic to the expected graph:\n{response.text[:500]}"
    return ""


def _run_test(client: httpx.Client, g: Graph, test, endpoints: Endpoints, manifest_dir: Path,
              reset: Callable[[], None]) -> Outcome:
    name = str(g.value(test, MF.name))
    reset()
    for data in g.objects(test, UT.graphData):  # graphs the test needs, loaded through the GSP
        source = manifest_dir / Path(str(g.value(data, UT.graph))).name
        label = str(g.value(data, RDFS.label))
        put = client.put(endpoints.url("/gsp"), params={"graph": label}, content=source.read_bytes(),
                         headers={"content-type": "application/n-triples", **(endpoints.headers or {})})
        if put.status_code >= 300:
            return Outcome(name, False, f"could not load {source.name}: {put.status_code}")
    action = g.value(test, MF.action)
    variables: dict[str, str] = {}
    for request in Collection(g, g.value(action, HT.requests)):
        path = str(g.value(request, HT.absolutePath))
        body = _body(request, g)
        for var, value in variables.items():
            path = path.replace(var, value)
            body = body.replace(var, value) if body is not None else None
        headers = {**(endpoints.headers or {}), **_headers(request, g)}
        url = endpoints.url(path)
        response = client.request(str(g.value(request, HT.methodName)), url, headers=headers,
                                  content=body.encode("utf-8") if body is not None else None)
        resp = g.value(request, HT.resp)
        problem = _check_response(response, resp, g, url)
        if problem:
            return Outcome(name, False, f"{g.value(request, HT.methodName)} {path}: {problem}")
        location = g.value(resp, MF.expectedLocation)
        if location is not None:
            if "location" not in response.headers:
                return Outcome(name, False, "no Location header")
            variables[str(location)] = response.headers["location"]
    return Outcome(name, True)


def _tests(g: Graph) -> list:
    tests = []
    for manifest in g.subjects(RDF.type, MF.Manifest):
        for entries in g.objects(manifest, MF.entries):
            tests.extend(Collection(g, entries))
    return tests


def run_manifest(manifest: Path, endpoints: Endpoints, reset: Callable[[], None]) -> list[Outcome]:
    """Run every test of one manifest in order; `reset` empties the store before each test."""
    g = Graph()
    g.parse(manifest, format="turtle", publicID=manifest.resolve().as_uri())
    with httpx.Client(timeout=30) as client:
        return [_run_test(client, g, test, endpoints, manifest.parent, reset) for test in _tests(g)]


def run_all(suite: Path, endpoints: Endpoints, reset: Callable[[], None]) -> dict[str, list[Outcome]]:
    """Protocol and Graph Store Protocol manifests of the suite directory (../shared/data/w3c-sparql11-tests)."""
    return {str(m): run_manifest(suite / m, endpoints, reset) for m in (PROTOCOL_MANIFEST, *GSP_MANIFESTS)}


def http_reset(endpoints: Endpoints) -> Callable[[], None]:
    """A reset that drops every graph through the endpoint itself."""
    def reset() -> None:
        response = httpx.post(endpoints.url("/sparql/"), content=b"DROP ALL",
                              headers={"content-type": "application/sparql-update", **(endpoints.headers or {})})
        response.raise_for_status()
    return reset


if __name__ == "__main__":  # python tests/w3c_protocol.py SUITE_DIR BASE_URL
    import sys

    suite_dir, base_url = Path(sys.argv[1]), sys.argv[2].rstrip("/")
    where = Endpoints(base_url, headers={"X-Requested-With": "w3c-tests"})
    for manifest_name, outcomes in run_all(suite_dir, where, http_reset(where)).items():
        print(f"{manifest_name}: {sum(o.passed for o in outcomes)}/{len(outcomes)} pass")
        for o in outcomes:
            print(f"  {'PASS' if o.passed else 'FAIL'} {o.name}" + (f" -- {o.reason}" if o.reason else ""))
