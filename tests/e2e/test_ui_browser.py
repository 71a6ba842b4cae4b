"""End-to-end: the SPARQL editor at /ui/sparql in headless Debian Chromium against the real server on a loopback port."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect
from pyoxigraph import RdfFormat

from tests.ui_support import browser, close_page, open_page, require_vendor  # noqa: F401  (browser: a fixture)

pytestmark = pytest.mark.browser
EDITOR = "/ui/sparql"

ENTITIES = 130  # more rows than one page of the results table (DISTINCT: the fact summary holds a second copy)
QUERY = ("SELECT DISTINCT ?entity ?label ?type WHERE { ?entity a ?type ; rdfs:label ?label . "
         "FILTER(?type = ont:Technology && STRSTARTS(?label, \"Tool \")) } ORDER BY ?label")


def _seed_turtle(base: str) -> str:
    lines = ["@prefix ont: <https://w3id.org/attest/ontology#> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    for i in range(1, ENTITIES + 1):
        lines.append(f'<{base}entity/tool-{i:03d}> a ont:Technology ; rdfs:label "Tool {i:03d}" .')
    return "\n".join(lines)


@pytest.fixture
def seeded(settings, iris):
    """Entities written into a document graph before the server opens the store."""
    from attest.store import open_store

    require_vendor()
    store = open_store(settings)
    try:
        store.load(_seed_turtle(iris.base), RdfFormat.TURTLE, graph=iris.document_graph("tools"))
    finally:
        store.close()


@pytest.fixture
def server(seeded, live_server):
    return live_server


@pytest.fixture
def page(browser, server, tmp_path):  # noqa: F811  (browser: the imported fixture)
    page = open_page(browser, viewport=(1400, 1000))
    yield page
    close_page(page, tmp_path / "screenshot.png")


def _type_query(page, text: str) -> None:
    editor = page.locator(".yasqe .CodeMirror").first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text)
    page.keyboard.press("Escape")  # close any autocompletion hint


def test_editor_runs_a_typed_query_and_pages_the_rows(page, server):
    page.goto(server.url + EDITOR)
    page.wait_for_selector(".yasqe .CodeMirror")

    # the ontology's prefixes come preloaded in the editor, and the editor highlights SPARQL
    editor_text = page.evaluate("() => window.attestYasgui.getTab().getYasqe().getValue()")
    assert "PREFIX ont: <https://w3id.org/attest/ontology#>" in editor_text
    assert page.locator(".yasqe .cm-keyword").count() > 0

    # keep the PREFIX lines, select the example query below them and type another one over it
    lines = editor_text.split("\n")
    example_start = next(i for i, line in enumerate(lines) if line.startswith("SELECT"))
    page.locator(".yasqe .CodeMirror-line").nth(example_start).click()
    page.keyboard.press("Home")
    page.keyboard.press("Shift+Control+End")
    page.keyboard.press("Delete")
    page.keyboard.type(QUERY)
    page.keyboard.press("Escape")  # close any autocompletion hint
    typed = page.evaluate("() => window.attestYasgui.getTab().getYasqe().getValue()")
    assert typed == "\n".join(lines[:example_start]) + "\n" + QUERY  # the preloaded PREFIX lines + the typed query

    with page.expect_response(lambda r: urlparse(r.url).path == "/sparql") as answered:
        page.locator(".yasqe_queryButton").click()
    assert answered.value.status == 200

    rows = page.locator(".yasr table.dataTable tbody tr")
    rows.first.wait_for()
    first_page = rows.all_inner_texts()
    assert len(first_page) == 50  # one page of the table, not all 130 rows
    assert "entity:tool-001" in first_page[0] and "Tool 001" in first_page[0]
    assert "ont:Technology" in first_page[0]  # IRIs shown with the preloaded prefixes (entity: too)
    assert "Tool 050" in first_page[-1]
    assert f"{ENTITIES} results" in page.locator(".yasr_response_chip").inner_text()
    assert f"of {ENTITIES} entries" in page.locator(".yasr .dt-info, .yasr .dataTables_info").first.inner_text()

    # the next page shows the following rows
    page.locator(".yasr .dt-paging-button.next, .yasr .paginate_button.next").first.click()
    page.get_by_text("Showing 51 to 100", exact=False).wait_for()
    second_page = rows.all_inner_texts()
    assert "Tool 051" in second_page[0] and "Tool 100" in second_page[-1]

    assert not page.outside_requests, f"the page fetched from outside the server: {page.outside_requests}"
    assert not page.page_errors


def test_results_download_as_csv(page, server):
    page.goto(server.url + EDITOR)
    page.wait_for_selector(".yasqe .CodeMirror")
    _type_query(page, "PREFIX ont: <https://w3id.org/attest/ontology#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
                      + QUERY)
    page.locator(".yasqe_queryButton").click()
    page.locator(".yasr table.dataTable tbody tr").first.wait_for()

    with page.expect_download() as download:
        page.locator(".yasr_downloadIcon").click()
    target = Path(download.value.path())
    rows = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert rows[0] == ["entity", "label", "type"]
    assert len(rows) == ENTITIES + 1  # every row, not only the page on screen
    assert rows[1] == ["https://w3id.org/attest/entity/tool-001", "Tool 001", "https://w3id.org/attest/ontology#Technology"]
    assert rows[-1][1] == f"Tool {ENTITIES:03d}"
    assert not page.outside_requests


def test_named_query_runs_with_its_parameter_from_the_sidebar(page, server):
    page.goto(server.url + EDITOR)
    button = page.locator("button.named-query", has_text="entity-by-label")
    button.click()
    form = page.locator("form.named-form[data-query='entity-by-label']")
    # its tab holds the query text, header included
    assert "@param label: string" in page.evaluate("() => window.attestYasgui.getTab().getYasqe().getValue()")

    form.locator("input[name='label']").fill('tool 12')
    with page.expect_response(lambda r: urlparse(r.url).path == "/queries/entity-by-label") as answered:
        form.locator("button.run").click()
    assert answered.value.status == 200
    assert parse_qs(urlparse(answered.value.url).query) == {"label": ["tool 12"]}
    rows = page.locator(".yasr table.dataTable tbody tr")
    rows.first.wait_for()
    texts = rows.all_inner_texts()
    assert len(texts) == 10  # Tool 120 .. Tool 129
    assert "entity:tool-120" in texts[0] and "Technology" in texts[0]

    # a parameter the server refuses comes back as the error it is, shown in the results area
    form.locator("input[name='label']").fill("")
    page.evaluate("() => document.querySelector(\"form.named-form[data-query='entity-by-label'] input\").required = false")
    with page.expect_response(lambda r: urlparse(r.url).path == "/queries/entity-by-label") as refused:
        form.locator("button.run").click()
    assert refused.value.status == 400
    page.get_by_text("missing parameter 'label'", exact=False).first.wait_for()
    assert not page.outside_requests
    assert not page.page_errors


def _term_list_loaded(kind_marker: str):
    """A predicate for the response to the editor's bulk fetch of class or property terms."""
    return lambda r: urlparse(r.url).path == "/sparql" and kind_marker in (r.request.post_data or "")


def test_editor_completes_ontology_terms_from_this_server(page, server):
    # the completers load their term lists once, when the editor opens: typing before they arrive shows
    # whatever list was current when the hint opened, so the test types after both are in
    with page.expect_response(_term_list_loaded("owl%3AClass")), \
            page.expect_response(_term_list_loaded("owl%3AObjectProperty")):
        page.goto(server.url + EDITOR)
    page.wait_for_selector(".yasqe .CodeMirror")
    page.locator(".yasqe .CodeMirror").first.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type("PREFIX ont: <https://w3id.org/attest/ontology#> SELECT * WHERE { ?x a ont:Tech")
    page.keyboard.press("Control+Space")
    expect(page.locator(".CodeMirror-hints li")).to_have_text(["ont:Technology"])  # from the ontology graph, not LOV
    page.keyboard.press("Enter")
    page.keyboard.type(" ; ont:developedB")
    page.keyboard.press("Control+Space")
    page.get_by_text("ont:developedBy").first.wait_for()
    page.keyboard.press("Enter")
    value = page.evaluate("() => window.attestYasgui.getTab().getYasqe().getValue()")
    assert value.endswith("?x a ont:Technology ; ont:developedBy")
    assert not page.outside_requests
    assert not page.page_errors


def test_the_pages_writes_pass_the_cross_site_checks_without_a_token(page, server):
    """The server refuses token-less form writes without X-Requested-With (docs/security.md): the editor's update
    and the documents page's upload send it, and their Origin is the server's own."""
    import httpx

    page.goto(server.url + EDITOR)
    page.wait_for_selector(".yasqe .CodeMirror")
    _type_query(page, 'INSERT DATA { <urn:ui:s> <urn:ui:p> "from the editor" }')
    # the editor's completion lists are SPARQL queries too, posted when they load: wait for the update's answer
    with page.expect_response(lambda r: urlparse(r.url).path == "/sparql" and "update=" in (r.request.post_data or "")
                              ) as answered:
        page.locator(".yasqe_queryButton").click()
    sent = answered.value.request
    assert answered.value.status == 204, answered.value.text()
    assert sent.headers.get("x-requested-with") == "attest"
    assert sent.headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
    ask = httpx.get(server.url + "/sparql", params={"query": 'ASK { <urn:ui:s> <urn:ui:p> "from the editor" }'},
                    headers={"Accept": "application/sparql-results+json"})
    assert ask.json()["boolean"] is True

    page.goto(server.url + "/ui/documents")
    with page.expect_response(lambda r: urlparse(r.url).path == "/documents" and r.request.method == "POST") as up:
        page.set_input_files("#file", files=[{"name": "ui.txt", "mimeType": "text/plain",
                                              "buffer": b"Oxigraph is written in Rust."}])
    assert up.value.status == 201, up.value.text()
    assert up.value.request.headers.get("x-requested-with") == "attest"
    assert not page.page_errors
