"""A stdio MCP server (2025-11-25, JSON lines) that lists some tools only to clients declaring
the matching capability, as the npm reference server-everything does: ``ask_model`` with
``sampling``, ``ask_user`` with ``elicitation``, ``show_roots`` with ``roots``. After
``notifications/initialized`` it asks the client for its roots, an elicitation and a sample,
and appends each answer (or error) as a JSON line to the file named by its argument.

    python capability_server.py ANSWERS.jsonl
"""
from __future__ import annotations

import json
import sys

NUM = {"type": "object", "properties": {"n": {"type": "number"}}}
CONDITIONAL = {"sampling": "ask_model", "elicitation": "ask_user", "roots": "show_roots"}
NEEDS = {"roots/list": "roots", "elicitation/create": "elicitation",
         "sampling/createMessage": "sampling"}


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    answers = open(sys.argv[1], "a", encoding="utf-8")
    caps: dict = {}
    asked = {"ask:roots": "roots/list", "ask:elicit": "elicitation/create",
             "ask:sample": "sampling/createMessage"}
    for line in sys.stdin:
        msg = json.loads(line)
        method, ident = msg.get("method"), msg.get("id")
        if method == "initialize":
            caps = msg["params"].get("capabilities") or {}
            send({"jsonrpc": "2.0", "id": ident, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "capability-server", "version": "1"}}})
        elif method == "notifications/initialized":
            params = {"roots/list": None,
                      "elicitation/create": {"message": "Your name?", "requestedSchema": {
                          "type": "object", "properties": {"name": {"type": "string"}}}},
                      "sampling/createMessage": {"messages": [], "maxTokens": 1}}
            for rid, m in asked.items():
                if NEEDS[m] in caps:
                    req = {"jsonrpc": "2.0", "id": rid, "method": m}
                    if params[m] is not None:
                        req["params"] = params[m]
                    send(req)
        elif method == "tools/list":
            tools = [{"name": "always", "inputSchema": NUM}]
            tools += [{"name": name, "inputSchema": NUM} for cap, name in CONDITIONAL.items()
                      if cap in caps]
            send({"jsonrpc": "2.0", "id": ident, "result": {"tools": tools}})
        elif method is None and ident in asked:  # the client's answer to one of our requests
            answers.write(json.dumps({asked[ident]: msg.get("result", msg.get("error"))}) + "\n")
            answers.flush()
        elif ident is not None:
            send({"jsonrpc": "2.0", "id": ident,
                  "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
