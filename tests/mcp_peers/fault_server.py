"""A stdlib-only MCP server that misbehaves on request, for the proxy's fault tests.

    python fault_server.py [--tag T] [--junk-banner] [--stderr-flood BYTES] [--ignore-eof]
                           [--ignore-term] [--spawn-child] [--wire-log FILE] [--page-size N]
                           [--legacy-only] [--big-ints] [--protocol-version V]

Answers `initialize`, `server/discover` (dual era), `ping`, `tools/list` (paginated when
--page-size is given; lists carry ttlMs/cacheScope/resultType/_meta on modern requests) and
`tools/call`. Unknown methods get -32601. Tools (see TOOLS):
  echo        text = JSON of the arguments received
  runoff      text = JSON {"received": arguments}
  read_discharge  text "1250" (a bare number)
  crash       the process exits at once (code 3) without answering
  hang        never answers; a notifications/cancelled for it is reported back as a
              notifications/message {"cancelled": requestId}
  big         text of arguments.size bytes
  junk        a non-JSON line on stdout, then the answer
  gather      held until arguments.n gather calls are pending, then all answered in reverse
  progress    arguments.steps notifications/progress (to _meta.progressToken), each after
              arguments.delay seconds (default 0), then the answer
  emit        sends the notifications in arguments.methods and, if arguments.ping_id is set,
              a server->client ping request with that id; then the answer
  raw         writes arguments.line verbatim with "ID" replaced by the request's JSON id
Every received line is appended to --wire-log FILE, byte for byte. With --protocol-version V,
``initialize`` is answered with V whatever the client asked for.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

args = sys.argv[1:]


def flag(name: str) -> bool:
    return name in args


def option(name: str, default=None):
    return args[args.index(name) + 1] if name in args else default


PAGE = option("--page-size")
if flag("--big-ints") and hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)  # read and write integers of any length
WIRE_LOG = option("--wire-log")
out_lock = threading.Lock()
stdout = sys.stdout.buffer


def write_line(data: bytes) -> None:
    with out_lock:
        stdout.write(data + b"\n")
        stdout.flush()


def send(obj) -> None:
    write_line(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def respond(ident, result) -> None:
    send({"jsonrpc": "2.0", "id": ident, "result": result})


def error(ident, code, message) -> None:
    send({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})


OBJ = {"type": "object", "properties": {}}
TOOLS = [
    {"name": "echo", "description": "Echo", "inputSchema": {"type": "object", "additionalProperties": True}},
    {"name": "runoff", "title": "Runoff depth", "description": "Runoff from discharge (m3/s) and area (km2).",
     "inputSchema": {"type": "object", "properties": {"discharge": {"type": "number", "minimum": 0},
                                                       "area": {"type": "number"}},
                     "required": ["discharge", "area"]},
     "annotations": {"readOnlyHint": True}, "icons": [{"src": "data:,x"}],
     "execution": {"taskSupport": "optional"}, "x-vendor-field": {"kept": 1.50},
     "_meta": {"com.example/owner": "hydro"}},
    {"name": "read_discharge", "description": "Discharge in cfs.",
     "inputSchema": {"type": "object", "properties": {"site": {"type": "string"}}}},
    {"name": "crash", "inputSchema": OBJ}, {"name": "hang", "inputSchema": OBJ},
    {"name": "big", "inputSchema": OBJ}, {"name": "junk", "inputSchema": OBJ},
    {"name": "gather", "inputSchema": OBJ}, {"name": "progress", "inputSchema": OBJ},
    {"name": "emit", "inputSchema": OBJ}, {"name": "raw", "inputSchema": OBJ},
]

gathered: list = []
gather_lock = threading.Lock()
hanging: set = set()


def text_result(s: str) -> dict:
    return {"content": [{"type": "text", "text": s}]}


def is_modern(params) -> bool:
    return isinstance(params, dict) and isinstance(params.get("_meta"), dict) and \
        "io.modelcontextprotocol/protocolVersion" in params["_meta"]


def call_tool(ident, params) -> None:
    name = params.get("name")
    a = params.get("arguments") or {}
    modern = is_modern(params)

    def done(result):
        if modern:
            result = {**result, "resultType": "complete"}
        respond(ident, result)

    if name == "echo":
        done(text_result(json.dumps(a)))
    elif name == "runoff":
        done(text_result(json.dumps({"received": a}, sort_keys=True)))
    elif name == "read_discharge":
        done(text_result("1250"))
    elif name == "crash":
        sys.stderr.write("fault_server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "hang":
        hanging.add(json.dumps(ident))
    elif name == "big":
        done(text_result("x" * int(a.get("size", 20_000_000))))
    elif name == "junk":
        write_line(b"this is not JSON: a stray print() on stdout")
        write_line(b'{"not": "a json-rpc message"}')
        write_line(b"\xff\xfe invalid utf-8")
        done(text_result("after junk"))
    elif name == "gather":
        with gather_lock:
            gathered.append(ident)
            if len(gathered) >= int(a.get("n", 3)):
                batch = list(reversed(gathered))
                gathered.clear()
            else:
                batch = []
        for i in batch:
            respond(i, text_result(f"gathered {json.dumps(i)}"))
    elif name == "progress":
        token = (params.get("_meta") or {}).get("progressToken")
        steps = int(a.get("steps", 3))
        for i in range(steps):
            time.sleep(float(a.get("delay", 0)))
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": i + 1, "total": steps}})
        done(text_result("done"))
    elif name == "emit":
        for method in a.get("methods", []):
            send({"jsonrpc": "2.0", "method": method, "params": {"from": "upstream"}})
        if "ping_id" in a:
            send({"jsonrpc": "2.0", "id": a["ping_id"], "method": "ping"})
        done(text_result("emitted"))
    elif name == "raw":
        write_line(a["line"].replace("ID", json.dumps(ident)).encode("utf-8"))
    else:
        error(ident, -32602, f"Unknown tool: {name}")


def handle(line: bytes) -> None:
    if WIRE_LOG:
        with open(WIRE_LOG, "ab") as f:
            f.write(line + b"\n")
    try:
        msg = json.loads(line)
    except ValueError:
        sys.stderr.write(f"fault_server: ignored non-JSON input {line[:80]!r}\n")
        return
    if not isinstance(msg, dict):
        sys.stderr.write("fault_server: ignored a non-object\n")
        return
    method = msg.get("method")
    ident = msg.get("id")
    params = msg.get("params") or {}
    if method is None:
        return  # a response to our ping, or junk
    if "id" not in msg:
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": {"cancelled": rid,
                                                       "was_hanging": json.dumps(rid) in hanging}}})
        return
    if method == "initialize":
        respond(ident, {"protocolVersion": option("--protocol-version")
                        or params.get("protocolVersion", "2025-11-25"),
                        "capabilities": {"tools": {"listChanged": True}},
                        "serverInfo": {"name": "fault-server", "version": "1"}})
    elif method == "server/discover" and flag("--legacy-only"):
        error(ident, -32601, "Method not found")
    elif method == "server/discover":
        respond(ident, {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                        "ttlMs": 0, "cacheScope": "private", "resultType": "complete"})
    elif method == "ping":
        respond(ident, {})
    elif method == "tools/list":
        start = int(params.get("cursor") or 0)
        size = int(PAGE) if PAGE else len(TOOLS)
        result = {"tools": TOOLS[start:start + size]}
        if start + size < len(TOOLS):
            result["nextCursor"] = str(start + size)
        if is_modern(params):
            result.update(ttlMs=60000, cacheScope="public", resultType="complete",
                          _meta={"com.example/page": start})
        respond(ident, result)
    elif method == "tools/call":
        threading.Thread(target=call_tool, args=(ident, params), daemon=True).start()
    else:
        error(ident, -32601, f"Method not found: {method}")


def main() -> None:
    if flag("--ignore-term"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if flag("--spawn-child"):
        tag = option("--tag", "none")
        subprocess.Popen([sys.executable, "-c",
                          "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                          "time.sleep(120)", "grandchild", tag])
    if flag("--junk-banner"):
        write_line(b"Fault server 1.0 starting up... (a banner on stdout)")
    flood = int(option("--stderr-flood", 0))
    if flood:
        line = b"e" * 1023 + b"\n"
        for _ in range(flood // 1024 + 1):
            sys.stderr.buffer.write(line)
        sys.stderr.buffer.flush()
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            break
        line = line.rstrip(b"\n")
        if line:
            handle(line)
    if flag("--ignore-eof"):
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
