"""The browser UI: the SPARQL editor page at / and its static files under /static."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from app.api.deps import IrisDep
from app.errors import NotFound
from app.named_queries import known_prefixes
from app.vocab import Iris

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
CONFIG_SLOT = "__ATTEST_CONFIG__"
EXAMPLE_QUERY = """SELECT ?class ?label ?comment WHERE {
  ?class a owl:Class ; rdfs:label ?label .
  OPTIONAL { ?class rdfs:comment ?comment }
  FILTER(STRSTARTS(STR(?class), STR(ont:)))
}
ORDER BY ?class"""

router = APIRouter(tags=["ui"])


def _page_config(iris: Iris) -> str:
    config = {"endpoint": "/sparql", "prefixes": known_prefixes(iris), "exampleQuery": EXAMPLE_QUERY}
    # inside <script>, "</" or "<!--" would end or confuse the element: escape every "<"
    return json.dumps(config).replace("<", "\\u003c")


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index(iris: IrisDep) -> HTMLResponse:
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    return HTMLResponse(page.replace(CONFIG_SLOT, _page_config(iris)), headers={"Cache-Control": "no-cache"})


@router.get("/static/{path:path}", include_in_schema=False)
def static(path: str) -> FileResponse:
    root = STATIC_DIR.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file() or target.name == "index.html":
        hint = " (run `make install` to fetch the editor from npm)" if path.startswith("vendor/") else ""
        raise NotFound(f"no static file '{path}'{hint}", path=path)
    # vendored files change only with ui/package-lock.json; ours should be revalidated on each load
    cache = "public, max-age=86400" if target.parent.name == "vendor" else "no-cache"
    return FileResponse(target, headers={"Cache-Control": cache})
