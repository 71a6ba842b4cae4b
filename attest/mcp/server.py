"""Attest as an MCP server (official `mcp` SDK, low-level Server): tools, resources and the prompt over AppResources."""

from __future__ import annotations

import contextlib
import functools
import json
from typing import Any, Callable, Iterator

import anyio.to_thread
import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from attest import __version__
from attest.errors import AttestError, NotFound
from attest.mcp import named, resources
from attest.mcp.tools import BUILT_IN, Json, ToolSpec
from attest.operations.resources import AppResources


INSTRUCTIONS = (
    "Attest is a knowledge graph built from documents, with OWL 2 RL inferences whose derivations are recorded. "
    "Start with kag_query for a question, cite what you state with the markers its context gives "
    "(<<entity:ID>>, <<relation:ID>>), and check your text with verify_citations before you answer. "
    "sparql_query and the query_* tools read the graph directly; resource attest://graph-layout says which graph holds what.")

# no tool writes to the graph (sparql_query refuses updates); answer may call the configured LLM, nothing else
Context = ServerRequestContext[Any]  # the SDK's per-request context (unused: the resources come from `current`)
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def build_server(current: Callable[[], AppResources]) -> Server:
    """An MCP server over the AppResources `current()` gives at each call (the FastAPI app's, opened after this
    is built, or the ones `attest mcp` opened). Named-query tools are read from queries/*.rq at each listing and
    call."""
    tools = {spec.name: spec for spec in BUILT_IN}

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        listed = [types.Tool(name=s.name, description=s.description, input_schema=s.input_schema(),
                             annotations=READ_ONLY) for s in BUILT_IN]
        for query in await anyio.to_thread.run_sync(named.named_tools, current()):
            listed.append(types.Tool(name=named.tool_name(query.name), description=named.description(query),
                                     input_schema=named.input_schema(query), annotations=READ_ONLY))
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        try:
            spec = tools.get(params.name)
            if spec is not None:
                result = await _run(spec, current(), arguments)
            else:
                query = await anyio.to_thread.run_sync(named.find, current(), params.name)
                if query is None:
                    raise NotFound(f"no tool named {params.name!r}; tools/list gives the tools", tool=params.name)
                result = await anyio.to_thread.run_sync(named.run, current(), query, arguments)
        except ValidationError as exc:
            return _error(f"invalid arguments for {params.name}: {_validation_message(exc)}")
        except AttestError as exc:
            return _error(f"{type(exc).__name__}: {exc.message}")
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(result, ensure_ascii=False))],
                                    structured_content=result)

    async def list_resources(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        listed = await anyio.to_thread.run_sync(resources.listed, current())
        return types.ListResourcesResult(resources=[types.Resource(**r) for r in listed])

    async def read_resource(ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        with _protocol_errors():
            text, mime_type = await anyio.to_thread.run_sync(resources.read, current(), str(params.uri))
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, mime_type=mime_type,
                                                                             text=text)])

    async def list_prompts(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=resources.PROMPT,
            description="How to answer from Attest's graph and cite every sentence: the citation rules and the "
                        "graph context retrieved for the question, with the markers to copy",
            arguments=[types.PromptArgument(name="question", description="The question to answer", required=True)])])

    async def get_prompt(ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        with _protocol_errors():
            if params.name != resources.PROMPT:
                raise NotFound(f"no prompt named {params.name!r}")
            question = (params.arguments or {}).get("question", "")
            text = await anyio.to_thread.run_sync(resources.grounded_answer, current(), question)
        return types.GetPromptResult(description="Grounded answer with verified citations", messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=text))])

    return Server("attest", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_read_resource=read_resource, on_list_prompts=list_prompts, on_get_prompt=get_prompt)


async def _run(spec: ToolSpec, resources: AppResources, arguments: dict[str, Any]) -> Json:
    args = spec.arguments.model_validate(arguments)
    if spec.blocking:
        result = await anyio.to_thread.run_sync(functools.partial(spec.run, resources, args))
    else:
        result = spec.run(resources, args)
    return result if isinstance(result, dict) else await result


@contextlib.contextmanager
def _protocol_errors() -> Iterator[None]:
    """Bad input to a resource or prompt read: an MCP invalid-params error carrying the message."""
    try:
        yield
    except AttestError as exc:
        raise MCPError(types.INVALID_PARAMS, f"{type(exc).__name__}: {exc.message}") from exc


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _validation_message(exc: ValidationError) -> str:
    """Each error as `field: message`, e.g. `entities: List should have at most 50 items after validation, not 51`."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors())
