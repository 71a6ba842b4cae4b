"""End-to-end: the pages under /ui/ (ask, entity, documents, ontology) in headless Debian Chromium, against the real
server over the demo corpus; the LLM is the fake OpenAI server (scripted answer, scripted extraction)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from urllib.parse import urlparse

import pytest
from pydantic import SecretStr

from tests.conftest import REPO, LiveServer
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.ui_support import browser, close_page, open_page, require_vendor  # noqa: F401  (browser: a fixture)

pytestmark = pytest.mark.browser

DEMO = REPO / "demo" / "corpus"
TOKEN = "ui-test-token"

# The scripted LLM answer: an asserted relation, a relation inferred by prp-trp (Grenoble is in France), an entity
# cited by a near label (a fuzzy match), and an entity that does not exist (confidence 0: the claim is removed).
ANSWER = ("Apache Jena runs on Java <<entity:apache-jena>> <<relation:apache-jena|uses|java>>. "
          "Xerox Research Centre Europe is in France <<relation:xerox-research-centre-europe|locatedIn|france>>. "
          "Its users often spell it Apache Jenna <<entity:Apache Jenna>>. "
          "It was written at NASA <<entity:nasa-ames>>.")

# The scripted extraction of the uploaded Markdown: one item the validator rejects (a type outside the ontology) and
# one relation SHACL quarantines (ont:locatedIn from a Technology).
UPLOAD = "# Quokka\n\nQuokkaDB is a graph database written in Rust. QuokkaDB is located in Perth.\n"
EXTRACTION = {
    "entities": [
        {"name": "QuokkaDB", "type": "Database", "description": "A graph database.", "confidence": 0.95},
        {"name": "Rust", "type": "Language", "description": "", "confidence": 0.9},
        {"name": "Perth", "type": "Location", "description": "", "confidence": 0.9},
        {"name": "Quokka Warp Drive", "type": "Spaceship", "description": "", "confidence": 0.9},
    ],
    "relations": [
        {"subject": "QuokkaDB", "predicate": "uses", "object": "Rust", "confidence": 0.9},
        {"subject": "QuokkaDB", "predicate": "locatedIn", "object": "Perth", "confidence": 0.9},
    ],
}


def _ingest_demo(settings) -> None:
    from attest.ingest.session import open_session
    from attest.ontology import load_ontology
    from attest.store import open_store
    from attest.vocab import Iris

    store = open_store(settings)
    try:
        load_ontology(store, settings.ontology_dir, Iris(settings.base_iri))
        session = open_session(store, settings, offline=True)
        with session.pipeline.batched(settings.ingest_batch_quads, lambda n: None):
            for path in sorted(DEMO.iterdir()):
                assert session.pipeline.ingest_path(path, path.name).outcome not in ("failed", "rejected")
    finally:
        store.close()


@pytest.fixture(scope="module")
def fake_llm():
    def respond(request) -> Reply:  # extraction asks for JSON; an answer is text
        wants_json = isinstance(request.json, dict) and "response_format" in request.json
        return Reply(json.dumps(EXTRACTION) if wants_json else ANSWER)

    with FakeOpenAI() as fake:
        fake.respond_with(respond)
        yield fake


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake_llm):
    """One server for the module over the demo corpus (ingested offline once); writes need TOKEN."""
    from attest.settings import load_settings

    require_vendor()
    settings = load_settings(None, data_dir=tmp_path_factory.mktemp("ui") / "data", ontology_dir=REPO / "ontology",
                             shapes_dir=REPO / "shapes", queries_dir=REPO / "queries")
    _ingest_demo(settings)
    settings = settings.model_copy(update={"llm_base_url": fake_llm.url, "llm_model": "test-model",
                                           "llm_timeout_s": 5.0, "llm_max_retries": 0, "token": SecretStr(TOKEN)})
    with LiveServer(settings) as live:
        yield live


@pytest.fixture
def page(browser, server, tmp_path):  # noqa: F811  (browser: the imported fixture)
    page = open_page(browser)
    yield page
    close_page(page, tmp_path / "screenshot.png")


def _clean(page) -> None:
    assert not page.outside_requests, f"the page fetched from outside the server: {page.outside_requests}"
    assert not page.page_errors, page.page_errors


def test_ask_shows_chips_by_band_and_opens_a_proof_down_to_asserted_premises(page, server):
    page.goto(server.url + "/")
    page.get_by_role("link", name="Ask", exact=True).first.click()
    page.wait_for_url("**/ui/ask")
    page.locator("#question").fill("Where do Apache Jena and Xerox Research Centre Europe live?")
    with page.expect_response(lambda r: urlparse(r.url).path == "/answer") as answered:
        page.locator("#question").press("Enter")  # the keyboard submits
    assert answered.value.status == 200
    assert json.loads(answered.value.request.post_data)["mode"] == "auto"

    chips = page.locator("#answer .chip")
    chips.first.wait_for()
    bands = [chip.get_attribute("data-band") for chip in chips.all()]
    assert bands.count("asserted") == 2 and bands.count("inferred") == 1
    assert bands.count("fuzzy") == 1 and bands.count("missing") == 1
    assert "depth 1" in page.locator("#answer .chip[data-band=inferred]").inner_text()
    removed = page.locator("#answer .claim-removed")
    assert removed.count() == 1 and "NASA" in removed.inner_text()
    assert "removed: confidence under 0.3" in removed.inner_text()

    # the inferred relation's proof tree, down to asserted premises from a document
    page.locator("#answer .chip[data-band=inferred]").click()
    evidence = page.locator("#evidence")
    evidence.locator(".proof").wait_for()
    assert "prp-trp" in evidence.inner_text()
    premises = evidence.locator(".premise-asserted")
    assert premises.count() >= 2
    assert any("grenoble" in text for text in premises.all_inner_texts())
    # a premise's source passage, the cited entities marked in the document's text
    evidence.locator("button.link-button", has_text="passage in").first.click()
    marks = evidence.locator(".passage mark")
    marks.first.wait_for()
    assert {"Xerox Research Centre Europe", "Grenoble"} & set(marks.all_inner_texts())

    # an entity chip opens the entity's card with a highlighted source passage
    page.keyboard.press("Escape")  # closes the evidence, focus back on its chip
    assert evidence.is_hidden()
    assert page.evaluate("() => document.activeElement.dataset.band") == "inferred"
    page.locator("#answer .chip[data-band=asserted]").first.focus()
    page.keyboard.press("Enter")
    evidence.locator(".entity-card h2", has_text="Apache Jena").wait_for()
    evidence.locator(".passage mark").first.wait_for()

    # "Show the SPARQL": the editor opens with exactly the query /answer returned (the walks of the answer's paths)
    # and runs it; its rows hold the ends of those paths
    report = answered.value.json()
    assert report["sparql"] and report["sparql"].startswith("SELECT DISTINCT ?answer")
    page.locator("#show-sparql").click()
    page.wait_for_url(lambda url: urlparse(url).path == "/ui/sparql")
    rows = page.locator(".yasr table.dataTable tbody tr")
    rows.first.wait_for()
    assert page.evaluate("() => window.attestYasgui.getTab().getYasqe().getValue()") == report["sparql"]
    ends = json.loads(page.request.post(server.url + "/context", data=json.dumps(
        {"query": "Where do Apache Jena and Xerox Research Centre Europe live?"}),
        headers={"Content-Type": "application/json"}).text())["paths"][0]["end"]
    assert any(ends in text for text in rows.all_inner_texts())

    # "Show the cited facts": the editor opens with a query for the cited facts and runs it
    page.go_back()
    page.locator("#show-cited-facts").wait_for()
    page.locator("#show-cited-facts").click()
    page.wait_for_url(lambda url: urlparse(url).path == "/ui/sparql")
    rows = page.locator(".yasr table.dataTable tbody tr")
    rows.first.wait_for()
    query = page.evaluate("() => window.attestYasgui.getTab().getYasqe().getValue()")
    assert "<https://w3id.org/attest/entity/xerox-research-centre-europe>" in query
    assert any("graph:inferred" in text or "/graph/inferred" in text for text in rows.all_inner_texts())
    # entity IRIs in the editor's results link to their pages
    link = page.locator(".yasr table.dataTable a[href^='/ui/entity/']:visible").first
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url(f"**{href}")
    page.locator("#facts tr").first.wait_for()
    _clean(page)


def _graph_nodes(page) -> list[dict]:
    return page.evaluate("() => window.attestGraph.nodes().map(n => ({id: n.id(), label: n.data('label')}))")


def test_entity_page_draws_the_neighbourhood_and_a_click_goes_there(page, server):
    expected = json.loads(page.request.get(server.url + "/neighbourhood?entity=apache-jena&hops=1").text())
    page.goto(server.url + "/ui/entity/apache-jena")
    page.locator("#entity-label", has_text="Apache Jena").wait_for()
    page.wait_for_function(f"() => window.attestGraph && window.attestGraph.nodes().length === {len(expected['nodes'])}")
    assert page.locator("#graph canvas").count() >= 1
    assert len(expected["nodes"]) >= 4
    assert page.locator("#entity-types .band-inferred").count() >= 1  # e.g. ont:Entity, from cax-sco
    assert page.locator("#facts tr").count() >= 3
    assert "oxigraph" in page.locator("#facts").inner_text()  # a fact's document
    page.locator(".passage mark", has_text="Apache Jena").first.wait_for()

    # two hops reach further; without inferred edges fewer edges are drawn
    page.locator("#hops").focus()
    page.keyboard.press("ArrowRight")
    two = json.loads(page.request.get(server.url + "/neighbourhood?entity=apache-jena&hops=2").text())
    page.wait_for_function(f"() => window.attestGraph.nodes().length === {len(two['nodes'])}")
    assert len(two["nodes"]) > len(expected["nodes"])
    edges_with = page.evaluate("() => window.attestGraph.edges().length")
    page.locator("#show-inferred").uncheck()
    page.wait_for_function(f"() => window.attestGraph.edges().length < {edges_with}")
    assert page.evaluate("() => window.attestGraph.edges().filter(e => e.data('inferred')).length") == 0

    # a click on a node opens that entity's page
    target = next(n for n in _graph_nodes(page) if n["id"] == "java")
    box = page.locator("#graph").bounding_box()
    at = page.evaluate(f"() => window.attestGraph.getElementById({json.dumps(target['id'])}).renderedPosition()")
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
    page.wait_for_url("**/ui/entity/java")
    page.locator("#entity-label", has_text="Java").wait_for()
    _clean(page)


def test_documents_upload_shows_the_report_and_a_bad_file_its_error(page, server, tmp_path):
    page.on("filechooser", lambda chooser: None)  # file chooser interception on before the page loads, not racing it
    page.goto(server.url + "/ui/documents")
    page.locator("#documents tr").first.wait_for()
    assert page.locator("#documents tr").count() == 12
    assert "12" in page.locator("#doc-count").inner_text()

    # without the token the write is refused, and the page says so
    bad = tmp_path / "broken.md"
    bad.write_bytes(b"\x00\x01binary\x00")
    page.locator("#drop").focus()
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Enter")  # the drop zone opens the file chooser from the keyboard
    chooser.value.set_files(str(bad))
    page.locator("#ui-error", has_text="401").wait_for()

    page.locator("#token").fill(TOKEN)
    assert page.evaluate("() => sessionStorage.getItem('attest-token')") == TOKEN
    page.locator("#file").set_input_files(str(bad))
    page.locator("#ui-error", has_text="binary").wait_for()
    assert "422" in page.locator("#ui-error").inner_text()

    # a Markdown file dropped on the zone: progress, then its report
    page.evaluate("""() => new MutationObserver(() => {
        if (!document.getElementById("progress").hidden) window.progressShown = true;
    }).observe(document.getElementById("progress"), { attributes: true })""")
    with page.expect_response(lambda r: urlparse(r.url).path == "/documents" and r.request.method == "POST") as posted:
        page.evaluate("""(text) => {
            const data = new DataTransfer();
            data.items.add(new File([text], "quokka.md", { type: "text/markdown" }));
            const zone = document.getElementById("drop");
            zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
            zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        }""", UPLOAD)
    assert posted.value.status == 201, posted.value.text()
    report = page.locator("#report .report")
    report.wait_for()
    assert page.evaluate("() => window.progressShown") is True and page.locator("#progress").is_hidden()
    assert "quokka.md" in report.inner_text()
    counts = dict(zip(report.locator(".counts dt").all_inner_texts(), report.locator(".counts dd").all_inner_texts()))
    assert int(counts["entities"]) >= 3 and int(counts["relations"]) >= 1
    assert int(counts["quarantined"]) == 1 and int(counts["rejected items"]) == 1
    assert "ont:locatedIn" in report.locator(".shacl-message").first.inner_text()
    report.locator("summary", has_text="rejected").click()
    rejected = report.locator(".report-list li", has_text="Quokka Warp Drive")
    assert "Spaceship" in rejected.locator(".reject-reason").inner_text()  # the reason names the unknown type
    row = page.locator("#documents tr", has_text="quokka.md")
    row.wait_for()
    assert "done" in row.inner_text()

    # delete it, after a confirmation
    doc_id = row.get_attribute("data-id")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_response(lambda r: r.request.method == "DELETE") as deleted:
        row.get_by_role("button", name="Delete quokka.md").click()
    assert deleted.value.status == 204
    row.wait_for(state="detached")
    assert page.request.get(f"{server.url}/documents/{doc_id}").status == 404
    _clean(page)


def test_ontology_trees_link_each_term_to_its_turtle_line(page, server):
    page.goto(server.url + "/ui/ontology")
    technology = page.locator("#class-tree li[data-iri='https://w3id.org/attest/ontology#Technology']").first
    technology.wait_for()
    count = int(re.search(r"(\d+) entit", technology.locator(".count").first.inner_text()).group(1))
    assert count > 10
    located = page.locator("#property-tree li[data-iri='https://w3id.org/attest/ontology#locatedIn']").first
    assert "Transitive" in located.inner_text() and "domain" in located.inner_text() and "range" in located.inner_text()
    source = technology.locator(".source-link").first
    file, line = source.inner_text().split(":")
    source.click()
    page.wait_for_url(f"**/ui/ontology/files/{file}#L{line}")
    target = page.locator(f"tr#L{line}")
    assert target.locator("code").inner_text().startswith("ont:Technology a owl:Class")
    assert page.evaluate("() => document.querySelector('tr:target').id") == f"L{line}"
    _clean(page)


@pytest.mark.parametrize("path", ["/", "/ui/ask", "/ui/entity/apache-jena", "/ui/documents", "/ui/ontology"])
def test_pages_fit_a_phone_screen(browser, server, path, tmp_path):  # noqa: F811
    page = open_page(browser, viewport=(390, 844))
    try:
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{path} scrolls sideways by {overflow}px on a phone"
        _clean(page)
    finally:
        close_page(page, tmp_path / "screenshot.png")


def test_home_finds_an_entity_by_label(page, server):
    page.goto(server.url + "/")
    for name in ("Ask", "Documents", "Ontology", "SPARQL editor"):
        assert page.locator(".cards a", has_text=name).count() == 1
    page.locator("#find-label").fill("jena")
    page.locator("#find-label").press("Enter")
    page.locator("#found").get_by_role("link", name="Apache Jena", exact=True).click()
    page.wait_for_url("**/ui/entity/apache-jena")
    _clean(page)


@pytest.fixture(scope="module")
def built_guide(tmp_path_factory):
    """The documentation site as `make docs` builds it (mkdocs build --strict), into a folder of the module's own."""
    site = tmp_path_factory.mktemp("guide")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(REPO / "mkdocs.yml"),
                    "-d", str(site)], check=True, cwd=REPO, env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""})
    return site


def test_home_links_the_guide_and_the_api_reference(page, server, built_guide, monkeypatch):
    """The home page's cards lead to the built guide, whose pages load nothing from outside the server, and to the
    OpenAPI page at /docs."""
    monkeypatch.setattr("attest.api.ui.GUIDE_DIR", built_guide)
    page.goto(server.url + "/")
    assert page.locator(".cards a", has_text="HTTP API").get_attribute("href") == "/docs"
    page.locator(".cards a", has_text="Guide").click()
    page.wait_for_url("**/guide/")
    assert page.title() == "Attest"
    page.locator("a[href='tutorial/']").first.click()
    page.wait_for_url("**/guide/tutorial/")
    assert page.title() == "Tutorial - Attest"
    assert page.locator("text=make demo").count() > 0
    _clean(page)


def test_guide_not_built_says_how_to_build_it(page, server, tmp_path, monkeypatch):
    monkeypatch.setattr("attest.api.ui.GUIDE_DIR", tmp_path / "no-site")
    page.goto(server.url + "/ui/ask")
    page.get_by_role("link", name="Guide").click()
    page.wait_for_url("**/guide/")
    text = page.locator("main").inner_text()
    assert "make docs" in text and "docs/" in text
    assert page.get_by_role("link", name="/docs").get_attribute("href") == "/docs"
    _clean(page)


def test_entity_facts_come_in_pages(page, server):
    page.goto(server.url + "/ui/entity/rdf")
    rows = page.locator("#facts tr")
    rows.nth(19).wait_for()
    assert rows.count() == 20
    first_page = rows.all_inner_texts()
    page.locator("#more-facts").click()
    page.wait_for_function("() => document.querySelectorAll('#facts tr').length > 20")
    assert rows.all_inner_texts()[:20] == first_page and len(set(rows.all_inner_texts())) == rows.count()
    _clean(page)
