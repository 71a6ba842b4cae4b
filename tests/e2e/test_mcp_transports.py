"""The MCP server over its real transports with the SDK's own client: stdio against an `attest mcp` subprocess, and
streamable HTTP at /mcp on the running service (bearer token, loopback only without one, a terminated session)."""

from __future__ import annotations

import sys

import anyio
import httpx
import httpx2
import pytest
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import SecretStr

from tests.conftest import REPO, LiveServer
from tests.mcp_support import demo_settings, error_text, exercise_every_tool

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def stdio_params(data_dir, *extra) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "attest.cli", "--data-dir", str(data_dir), *extra, "mcp"], cwd=str(REPO),
        env={"ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"), "ATTEST_SHAPES_DIR": str(REPO / "shapes"),
             "ATTEST_QUERIES_DIR": str(REPO / "queries"), "ATTEST_LLM_BASE_URL": "http://127.0.0.1:9/v1"})


def test_every_tool_over_stdio_against_attest_mcp(demo_dir):
    async def work():
        async with Client(stdio_params(demo_dir)) as client:
            await exercise_every_tool(client)
            text = error_text(await client.call_tool("sparql_query", {
                "query": "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", "timeout": 1}))
            assert "deadline of 1 s" in text  # the worker processes run under `attest mcp` too

    anyio.run(work)


def test_attest_mcp_next_to_a_running_server_says_what_to_do(demo_dir):
    """The store is the server's while it runs: `attest mcp` exits with a message pointing at /mcp."""
    import subprocess

    with LiveServer(demo_settings(demo_dir)):
        done = subprocess.run([sys.executable, "-m", "attest.cli", "--data-dir", str(demo_dir), "mcp"], cwd=REPO,
                              input=b"", capture_output=True, timeout=60)
    assert done.returncode == 1 and b"/mcp endpoint" in done.stderr and done.stdout == b""


def http_client(token: str | None = None, **hooks) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120), event_hooks=hooks or None)


def test_every_tool_over_streamable_http_with_the_token(demo_dir):
    settings = demo_settings(demo_dir, token=SecretStr("s3cret"), llm_base_url="http://127.0.0.1:9/v1")
    with LiveServer(settings) as server:
        url = f"{server.url}/mcp"

        async def work():
            async with Client(streamable_http_client(url, http_client=http_client("s3cret"))) as client:
                await exercise_every_tool(client)
            with pytest.raises(Exception):  # without the token the client cannot even connect
                async with Client(streamable_http_client(url, http_client=http_client())) as client:
                    await client.list_tools()

        anyio.run(work)
        assert httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS).status_code == 401
        wrong = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer wrong"})
        assert wrong.status_code == 401 and wrong.json()["error"] == "Unauthorized"


def test_without_a_token_mcp_is_for_loopback_clients_only(demo_dir):
    from attest.main import create_app

    settings = demo_settings(demo_dir)
    with TestClient(create_app(settings), client=("192.0.2.7", 40000), base_url="http://localhost") as remote:
        refused = remote.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        assert refused.status_code == 403 and "non-local" in refused.json()["message"]
    with LiveServer(settings) as server:
        ok = httpx.post(f"{server.url}/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        assert ok.status_code == 200
        # a page whose DNS name was rebound to 127.0.0.1 sends its own Host: refused
        rebound = httpx.post(f"{server.url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Host": "evil.example"})
        assert rebound.status_code == 421


def test_a_tool_call_on_a_terminated_http_session_is_a_clean_error(demo_dir):
    with LiveServer(demo_settings(demo_dir)) as server:
        url = f"{server.url}/mcp"
        sessions: list[str] = []

        async def remember(response):
            if "mcp-session-id" in response.headers:
                sessions.append(response.headers["mcp-session-id"])

        async def work():
            transport = streamable_http_client(url, http_client=http_client(response=[remember]))
            async with Client(transport, mode="legacy") as client:
                assert (await client.call_tool("get_entity", {"id": "oxigraph"})).is_error is False
                async with httpx2.AsyncClient() as other:
                    closed = await other.delete(url, headers={"mcp-session-id": sessions[-1]})
                    assert closed.status_code == 200
                with pytest.raises(MCPError, match="Session (not found|terminated)"):
                    await client.call_tool("get_entity", {"id": "oxigraph"})
            async with Client(url) as fresh:  # the server itself is fine: a new session works
                assert (await fresh.call_tool("get_entity", {"id": "oxigraph"})).is_error is False

        anyio.run(work)
