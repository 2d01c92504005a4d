"""An upstream MCP server built with the official SDK (lowlevel ``Server``), for tests.

Tools (listed 3 per page, so a client sees several pages):
  read_discharge(site)        -> bare number "1250" as text, structuredContent {"result": 1250.0}
                                 under an outputSchema {"result": number}
  runoff(discharge, area)     -> text JSON of what it received (so tests see conversions)
  echo(...)                   -> structuredContent {"args": arguments}; unguarded
  fail()                      -> an isError result
  progress(steps)             -> `steps` progress notifications, then "done"
  ask()                       -> legacy era: elicitation/create, sampling/createMessage and
                                 roots/list sent to the client; 2026-07-28: an input_required
                                 result (MRTR), answered on the retry
runoff with "confirm": true asks for input the same way before answering (MRTR on 2026-07-28).
  pad_0 .. pad_3              -> fillers
Run: python sdk_server.py [--page-size N]
"""
from __future__ import annotations

import json
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PAGE = 3
if "--page-size" in sys.argv:
    PAGE = int(sys.argv[sys.argv.index("--page-size") + 1])

NUMBER = {"type": "number"}
TOOLS = [
    types.Tool(name="read_discharge", description="Latest discharge at a USGS site, in cubic feet per second.",
               input_schema={"type": "object", "properties": {"site": {"type": "string"}}, "required": ["site"]},
               output_schema={"type": "object", "properties": {"result": NUMBER}, "required": ["result"]}),
    types.Tool(name="runoff", description="Runoff depth from discharge (m3/s) and area (km2).",
               input_schema={"type": "object", "properties": {"discharge": NUMBER, "area": NUMBER},
                             "required": ["discharge", "area"]}),
    types.Tool(name="echo", description="Echo the arguments.",
               input_schema={"type": "object", "properties": {}, "additionalProperties": True},
               output_schema={"type": "object", "properties": {"args": {"type": "object"}}, "required": ["args"]}),
    types.Tool(name="fail", description="Always fails.", input_schema={"type": "object", "properties": {}}),
    types.Tool(name="progress", description="Reports progress.",
               input_schema={"type": "object", "properties": {"steps": {"type": "integer"}}}),
    types.Tool(name="ask", description="Asks the client.", input_schema={"type": "object", "properties": {}}),
] + [types.Tool(name=f"pad_{i}", description="filler", input_schema={"type": "object", "properties": {}})
     for i in range(4)]


async def list_tools(ctx, params):
    cursor = params.cursor if params is not None else None
    start = int(cursor) if cursor else 0
    end = start + PAGE
    return types.ListToolsResult(tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None)


def text(s: str) -> list:
    return [types.TextContent(type="text", text=s)]


RUNOFF_HISTORY: list = []
CONFIRM = types.ElicitRequest(params=types.ElicitRequestFormParams(
    message="Proceed?", requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}}))


def modern(ctx) -> bool:
    return ctx.protocol_version == "2026-07-28"


async def ask_legacy(ctx) -> str:
    elicited = await ctx.session.elicit_form("Proceed?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    sampled = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))], max_tokens=5)
    roots = await ctx.session.list_roots()
    return json.dumps({"elicited": elicited.content, "sampled": sampled.content.text,
                       "roots": [str(r.uri) for r in roots.roots]})


async def call_tool(ctx, params):
    name, args = params.name, params.arguments or {}
    if name == "ask" or (name == "runoff" and args.get("confirm")):
        if name == "runoff":
            RUNOFF_HISTORY.append(json.dumps(args, sort_keys=True))
        if not modern(ctx):
            answer = await ask_legacy(ctx)
        elif not params.input_responses:
            return types.InputRequiredResult(input_requests={"confirm": CONFIRM}, request_state="round-1")
        else:
            answer = json.dumps({"state": params.request_state,
                                 "responses": {k: v.model_dump(by_alias=True, exclude_none=True)
                                               for k, v in params.input_responses.items()}})
        if name == "ask":
            return types.CallToolResult(content=text(answer))
        return types.CallToolResult(content=text(json.dumps({"received": args, "history": RUNOFF_HISTORY,
                                                             "answer": json.loads(answer)}, sort_keys=True)))
    if name == "read_discharge":
        return types.CallToolResult(content=text("1250"), structured_content={"result": 1250.0})
    if name == "runoff":
        return types.CallToolResult(content=text(json.dumps({"received": args}, sort_keys=True)))
    if name == "echo":
        return types.CallToolResult(content=text(json.dumps(args)), structured_content={"args": args})
    if name == "fail":
        return types.CallToolResult(content=text("it failed"), is_error=True)
    if name == "progress":
        steps = int(args.get("steps", 3))
        for i in range(steps):
            await ctx.session.report_progress(i + 1, steps, f"step {i + 1}")
        return types.CallToolResult(content=text("done"))
    if name == "sleep":
        await anyio.sleep(float(args.get("seconds", 1)))
        return types.CallToolResult(content=text("slept"))
    if name.startswith("pad_"):
        return types.CallToolResult(content=text(name))
    raise ValueError(f"unknown tool {name}")


server = Server("sdk-upstream", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
