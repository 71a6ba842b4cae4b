"""The browser UI: the home page at /, the pages under /ui/ (SPARQL editor, ask, entity, documents, ontology), the guide."""

from __future__ import annotations

import html
import json
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from attest.api.browse import ontology_source
from attest.api.deps import IrisDep, SettingsDep
from attest.errors import NotFound
from attest.named_queries import known_prefixes
from attest.vocab import Iris

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
GUIDE_DIR = STATIC_DIR / "guide"  # the documentation site, written there by `make docs` (mkdocs build)
GUIDE_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Attest · Guide not built</title>
<link rel="stylesheet" href="/static/attest.css"></head>
<body><main class="page"><h1>The guide is not built here</h1>
<p>The documentation site is built from the <code>docs/</code> folder of the repository by <code>make docs</code>
(or <code>make demo</code>), and then served at this address. Until then, read the Markdown pages in
<code>docs/</code>, or the HTTP API reference of this server at <a href="/docs">/docs</a>.</p>
<p><a href="/">Back to the home page</a></p></main></body></html>
"""
CONFIG_SLOT = "__ATTEST_CONFIG__"
EXAMPLE_QUERY = """SELECT ?class ?label ?comment WHERE {
  ?class a owl:Class ; rdfs:label ?label .
  OPTIONAL { ?class rdfs:comment ?comment }
  FILTER(STRSTARTS(STR(?class), STR(ont:)))
}
ORDER BY ?class"""

# page name -> (title, subtitle, vendored scripts it needs before its own)
PAGES = {
    "home": ("Home", "a knowledge graph whose answers cite it", []),
    "ask": ("Ask", "answers with their evidence", []),
    "entity": ("Entity", "an entity, its facts and its neighbourhood", ["vendor/cytoscape.min.js"]),
    "documents": ("Documents", "upload, inspect and delete documents", []),
    "ontology": ("Ontology", "classes and properties of the ontology", []),
}

router = APIRouter(tags=["ui"])


def _page_config(iris: Iris, **extra: object) -> str:
    config = {"endpoint": "/sparql", "prefixes": known_prefixes(iris), "exampleQuery": EXAMPLE_QUERY,
              "entityBase": iris.entity(""), **extra}
    # inside <script>, "</" or "<!--" would end or confuse the element: escape every "<"
    return json.dumps(config).replace("<", "\\u003c")


def _html(page: str) -> HTMLResponse:
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})


def _shell(name: str, iris: Iris, body: str | None = None) -> HTMLResponse:
    """A page: the shared header and navigation around its body fragment (static/pages/NAME.html), then its script."""
    title, subtitle, vendored = PAGES[name]
    scripts = [*vendored, "common.js", f"pages/{name}.js"]
    page = (STATIC_DIR / "shell.html").read_text(encoding="utf-8")
    fragment = body if body is not None else (STATIC_DIR / "pages" / f"{name}.html").read_text(encoding="utf-8")
    nav_current = f'<a href="/ui/{name}">'
    page = page.replace(nav_current, f'<a href="/ui/{name}" aria-current="page">')
    page = (page.replace("__TITLE__", title).replace("__SUBTITLE__", subtitle).replace("__BODY__", fragment)
            .replace("__SCRIPTS__", "\n".join(f'  <script src="/static/{s}"></script>' for s in scripts)))
    return _html(page.replace(CONFIG_SLOT, _page_config(iris, page=name)))


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def home(iris: IrisDep) -> HTMLResponse:
    return _shell("home", iris)


@router.get("/ui/sparql", response_class=HTMLResponse, include_in_schema=False)
def sparql_editor(iris: IrisDep) -> HTMLResponse:
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    return _html(page.replace(CONFIG_SLOT, _page_config(iris, page="sparql")))


@router.get("/ui/ask", response_class=HTMLResponse, include_in_schema=False)
def ask(iris: IrisDep) -> HTMLResponse:
    return _shell("ask", iris)


@router.get("/ui/entity/{entity_id:path}", response_class=HTMLResponse, include_in_schema=False)
def entity(entity_id: str, iris: IrisDep) -> HTMLResponse:
    return _shell("entity", iris)  # the page reads the id from its address and asks /entities for it


@router.get("/ui/documents", response_class=HTMLResponse, include_in_schema=False)
def documents(iris: IrisDep) -> HTMLResponse:
    return _shell("documents", iris)


@router.get("/ui/ontology", response_class=HTMLResponse, include_in_schema=False)
def ontology(iris: IrisDep) -> HTMLResponse:
    return _shell("ontology", iris)


@router.get("/ui/ontology/files/{name}", response_class=HTMLResponse, include_in_schema=False)
def ontology_file(name: str, iris: IrisDep, settings: SettingsDep) -> HTMLResponse:
    """An ontology file with numbered lines, each an anchor (#L12) that the ontology page links to."""
    path = ontology_source(settings, name)
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = "\n".join(f'<tr id="L{i}"><td class="ln"><a href="#L{i}">{i}</a></td><td><code>{html.escape(line)}</code></td></tr>'
                     for i, line in enumerate(lines, start=1))
    body = (f'<h1>{html.escape(path.name)}</h1><p><a href="/ui/ontology">Back to the ontology</a> · '
            f'<a href="/ontology/files/{html.escape(path.name)}">raw Turtle</a></p>'
            f'<table class="source">{rows}</table>')
    return _shell("ontology", iris, body)


@router.get("/static/{path:path}", include_in_schema=False)
def static(path: str) -> FileResponse:
    root = STATIC_DIR.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file() or target.suffix == ".html":
        hint = " (run `make install` to fetch the UI libraries from npm)" if path.startswith("vendor/") else ""
        raise NotFound(f"no static file '{path}'{hint}", path=path)
    # vendored files change only with ui/package-lock.json; ours should be revalidated on each load
    cache = "public, max-age=86400" if target.parent.name == "vendor" else "no-cache"
    return FileResponse(target, headers={"Cache-Control": cache})


@router.get("/guide", include_in_schema=False)
def guide_root() -> RedirectResponse:
    return RedirectResponse("/guide/")


@router.get("/guide/{path:path}", include_in_schema=False, response_model=None)
def guide(path: str) -> FileResponse | HTMLResponse | RedirectResponse:
    """The built documentation site; a page saying how to build it when it is not there."""
    root = GUIDE_DIR.resolve()
    if not (root / "index.html").is_file():
        return HTMLResponse(GUIDE_NOT_BUILT, status_code=404, headers={"Cache-Control": "no-cache"})
    target = (root / path).resolve()
    if target.is_relative_to(root) and target.is_dir():
        if path and not path.endswith("/"):  # the page's relative links need the folder's address
            return RedirectResponse(f"/guide/{path}/")
        target = target / "index.html"  # mkdocs writes each page as a folder's index.html
    if not target.is_relative_to(root) or not target.is_file():
        raise NotFound(f"no page '{path}' in the guide", path=path)
    return FileResponse(target, headers={"Cache-Control": "no-cache"})
