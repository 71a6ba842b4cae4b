"""Shared fixtures: settings on tmp_path, a store, the app, a live server on a free loopback port, shared data,
the ontology's extraction terms, the demo corpus ingested."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings as hypothesis_settings

REPO = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.fakes.fixtures"]  # fake_llm, llm_settings: the fake OpenAI-compatible server

# Property tests: derandomized under CI (the same examples on every clean clone, so one run's failure is the next
# one's too), exploring locally; a failing example prints the blob that replays it (@reproduce_failure).
# `pytest --hypothesis-profile=ci` runs CI's examples locally. Tests that set max_examples keep theirs; too_slow is
# off in CI because a health check that depends on the machine's load would make a derandomized run flaky.
hypothesis_settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None, print_blob=True,
                                     suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.register_profile("dev", derandomize=False, deadline=None, print_blob=True)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


def shared_data_dir() -> Path:
    """../shared/data: fails under CI=true when missing, skips with a message elsewhere."""
    path = REPO.parent / "shared" / "data"
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared data set missing at {path} (CI must have ../shared/data)")
        pytest.skip(f"shared data set not present at {path}; it lives beside the repository in ../shared/data")
    return path


@pytest.fixture
def shared_data() -> Path:
    return shared_data_dir()


@pytest.fixture(scope="session")
def oxigraph_server():
    """One real Oxigraph server for the session (tests/remote_support.py); tests empty it before use."""
    from tests.remote_support import OxigraphServer

    with OxigraphServer() as server:
        yield server


@pytest.fixture(scope="session")
def virtuoso_server():
    """One real Virtuoso server for the session (tests/remote_support.py); tests empty it before use. A SIGTERM to
    pytest is turned into KeyboardInterrupt meanwhile, so that the session ends through this fixture's teardown
    and virtuoso-t is stopped, not left running."""
    import signal
    import threading

    from tests.remote_support import VirtuosoServer

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = None
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        with VirtuosoServer() as server:
            yield server
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@pytest.fixture(autouse=True)
def _runaway_queries_end_with_their_test(request):
    """After a test marked `runaway`, restart the session's Oxigraph server if the test used it."""
    yield
    if request.node.get_closest_marker("runaway") and "oxigraph_server" in request.fixturenames:
        request.getfixturevalue("oxigraph_server").restart()


@pytest.fixture
def settings(request, tmp_path):
    """Settings on tmp_path; with ATTEST_TEST_STORE=oxigraph|virtuoso the store is that (emptied) session server."""
    from attest.settings import load_settings
    from tests.remote_support import store_kind_under_test

    remote = {}
    kind = store_kind_under_test()
    if kind != "embedded":
        server = request.getfixturevalue(f"{kind}_server")
        server.clear()
        remote = server.store_settings()
    return load_settings(
        None,
        data_dir=tmp_path / "data",
        ontology_dir=REPO / "ontology",
        shapes_dir=REPO / "shapes",
        queries_dir=REPO / "queries",
        **remote,
    )


@pytest.fixture
def iris(settings):
    from attest.vocab import Iris

    return Iris(settings.base_iri)


@pytest.fixture
def store(settings, iris):
    from attest.store import open_store

    s = open_store(settings)
    yield s
    s.close()


@pytest.fixture(scope="module")
def terms():
    """The extraction terms of the shipped ontology."""
    from attest.extract.ontology_terms import load_terms

    return load_terms(REPO / "ontology")


@pytest.fixture
def client(settings):
    """In-process client over the full app (lifespan runs: store opened, ontology loaded)."""
    from fastapi.testclient import TestClient

    from attest.main import create_app

    with TestClient(create_app(settings), base_url="http://localhost") as c:
        yield c


@pytest.fixture
def offline_api(settings):
    """In-process client over the app whose LLM base URL points at a loopback port where nothing listens."""
    from tests.answer_support import app_client, without_llm

    client = app_client(without_llm(settings))
    yield client
    client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory):
    """A data folder with the demo corpus ingested offline, once per module."""
    from tests.mcp_support import ingest_demo

    data_dir = tmp_path_factory.mktemp("mcp-demo") / "data"
    ingest_demo(data_dir)
    return data_dir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """The real app under uvicorn on a free loopback port, in a thread of the test process."""

    def __init__(self, settings) -> None:
        import uvicorn

        from attest.main import create_app

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def live_server(settings):
    with LiveServer(settings) as server:
        yield server
