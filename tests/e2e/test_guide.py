"""The guide route: /guide/ serves the built documentation site (folders as their index.html, nothing outside it),
or a page saying how to build it; the home page links it and the OpenAPI page."""

from __future__ import annotations

import pytest


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


def test_home_page_links_the_guide_and_the_openapi_page(client):
    home = client.get("/").text
    assert 'href="/guide/"' in home and 'href="/docs"' in home
    assert client.get("/docs").status_code == 200


def test_guide_serves_pages_and_assets(client, site):
    assert client.get("/guide/").text == "<h1>home of the guide</h1>"
    assert client.get("/guide/tutorial/").text == "<h1>the tutorial</h1>"
    css = client.get("/guide/assets/main.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    moved = client.get("/guide", follow_redirects=False)
    assert moved.status_code in (307, 308) and moved.headers["location"] == "/guide/"
    # a page's relative links need its folder's address
    moved = client.get("/guide/tutorial", follow_redirects=False)
    assert moved.status_code in (307, 308) and moved.headers["location"] == "/guide/tutorial/"


@pytest.mark.parametrize("path", ["/guide/no-such-page/", "/guide/%2e%2e/secret.txt", "/guide/..%2fsecret.txt",
                                  "/guide/tutorial/%2e%2e/%2e%2e/secret.txt"])
def test_guide_serves_nothing_else(client, site, path):
    response = client.get(path)  # the escapes reach the route as "../": its own check refuses them
    assert response.status_code == 404 and response.json()["error"] == "NotFound"
    assert "not for the web" not in response.text


def test_guide_not_built_says_how(client, tmp_path, monkeypatch):
    monkeypatch.setattr("attest.api.ui.GUIDE_DIR", tmp_path / "empty")
    response = client.get("/guide/tutorial/")
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert "make docs" in response.text and 'href="/docs"' in response.text
