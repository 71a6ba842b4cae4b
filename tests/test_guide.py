"""The guide route: /guide/ serves the built documentation site (folders as their index.html, nothing outside it),
or a page saying how to build it; the home page links it and the OpenAPI page."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


@pytest.fixture
def app_client(settings):
    from attest.main import create_app

    with TestClient(create_app(settings), base_url="http://localhost") as c:
        yield c


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A small site laid out as mkdocs writes one (a page is a folder's index.html), with a secret beside it."""
    root = tmp_path / "site"
    (root / "tutorial").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "index.html").write_text("<h1>home of the guide</h1>")
    (root / "tutorial" / "index.html").write_text("<h1>the tutorial</h1>")
    (root / "assets" / "main.css").write_text("body { color: black }")
    (tmp_path / "secret.txt").write_text("not for the web")
    monkeypatch.setattr("attest.api.ui.GUIDE_DIR", root)
    return root


def test_home_page_links_the_guide_and_the_openapi_page(app_client):
    home = app_client.get("/").text
    assert 'href="/guide/"' in home and 'href="/docs"' in home
    assert app_client.get("/docs").status_code == 200


def test_guide_serves_pages_and_assets(app_client, site):
    assert app_client.get("/guide/").text == "<h1>home of the guide</h1>"
    assert app_client.get("/guide/tutorial/").text == "<h1>the tutorial</h1>"
    css = app_client.get("/guide/assets/main.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    moved = app_client.get("/guide", follow_redirects=False)
    assert moved.status_code in (307, 308) and moved.headers["location"] == "/guide/"
    # a page's relative links need its folder's address
    moved = app_client.get("/guide/tutorial", follow_redirects=False)
    assert moved.status_code in (307, 308) and moved.headers["location"] == "/guide/tutorial/"


@pytest.mark.parametrize("path", ["/guide/no-such-page/", "/guide/%2e%2e/secret.txt", "/guide/..%2fsecret.txt",
                                  "/guide/tutorial/%2e%2e/%2e%2e/secret.txt"])
def test_guide_serves_nothing_else(app_client, site, path):
    response = app_client.get(path)  # the escapes reach the route as "../": its own check refuses them
    assert response.status_code == 404 and response.json()["error"] == "NotFound"
    assert "not for the web" not in response.text


def test_guide_not_built_says_how(app_client, tmp_path, monkeypatch):
    monkeypatch.setattr("attest.api.ui.GUIDE_DIR", tmp_path / "empty")
    response = app_client.get("/guide/tutorial/")
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert "make docs" in response.text and 'href="/docs"' in response.text
