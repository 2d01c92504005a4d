"""A 2026-07-28 test server (SDK 2.3 lowlevel Server over Streamable HTTP, uvicorn), for tests.

Tools:
  wait(seconds: integer, region: string)  both mirrored into Mcp-Param-Seconds / Mcp-Param-Region
                                          headers (x-mcp-header), which the SDK validates against
                                          the body (-32020 HeaderMismatch otherwise); answers
                                          the arguments it received
  touch()                                 publishes tools/list_changed to subscriptions/listen
Binds 127.0.0.1 on a free port and prints ``PORT <n>``.
"""
from __future__ import annotations

import json
import socket

import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

BUS = InMemorySubscriptionBus()
TOOLS = [
    types.Tool(name="wait", description="Waits (seconds).",
               input_schema={"type": "object", "properties": {
                   "seconds": {"type": "integer", "x-mcp-header": "Seconds"},
                   "region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["seconds"]}),
    types.Tool(name="touch", description="Changes the tool list.", input_schema={"type": "object", "properties": {}}),
]


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    if params.name == "wait":
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(params.arguments))])
    if params.name == "touch":
        await BUS.publish(ToolsListChanged())
        return types.CallToolResult(content=[types.TextContent(type="text", text="touched")])
    raise ValueError(params.name)


server = Server("modern-upstream", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool,
                on_subscriptions_listen=ListenHandler(BUS))


def main() -> None:
    app = server.streamable_http_app()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, fd=sock.fileno(), log_level="warning")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
