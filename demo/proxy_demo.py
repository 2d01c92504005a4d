"""The main demo, offline: python demo/proxy_demo.py

Starts quantity-guard-mcp in front of demo/usgs_server.py (an ordinary MCP server that states
units in prose and answers bare numbers), talks to it as an MCP client over real pipes, and
prints what a model would see: the re-advertised schema, a labelled reading, the unconverted
carry-over refused with its repair text, the repaired call converted, a datum refusal, and a
sourced parameter refusing a value no tool returned.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Client:
    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the proxy closed its output")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(reply["error"])
                return reply["result"]

    def notify(self, method: str) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def call(self, name: str, arguments: dict) -> None:
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = result["content"][0]["text"]
        print(f"{'ERROR' if result.get('isError') else 'ok':<8} {text}")

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=10)


def main() -> int:
    # the proxy logs each refusal at WARNING on stderr; the demo prints what the client sees, so
    # only the proxy's errors reach the terminal beside it
    proxy = [sys.executable, "-m", "quantity_guard.mcp.cli", "--log-level", "ERROR", "--annotations",
             str(ROOT / "demo" / "water.toml"), "--", sys.executable,
             str(ROOT / "demo" / "usgs_server.py")]
    client = Client(proxy)
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "proxy-demo", "version": "1"}})
    client.notify("notifications/initialized")
    tools = {t["name"]: t for t in client.request("tools/list")["tools"]}
    discharge = tools["runoff_depth"]["inputSchema"]["properties"]["discharge"]
    print(f"{'schema':<8} discharge x-unit = {discharge['x-unit']}: {discharge['description']}")
    client.call("read_discharge", {"site": "07374000"})
    client.call("read_drainage_area", {"site": "07374000"})
    # a model passing the cfs reading straight into a parameter declared in m3/s
    client.call("runoff_depth", {"discharge": 1250, "area": 29000})
    # the repair the error asks for: say what the number is; the proxy converts it
    client.call("runoff_depth", {"discharge": {"value": 1250, "unit": "cfs"}, "area": 29000})
    # a stage above the gage datum differenced against a crest on NAVD88
    client.call("read_stage", {"site": "07374000"})
    client.call("freeboard", {"stage": "12.4 ft GAGE:07374000", "crest": "31.0 ft NAVD88"})
    # a drainage area no tool returned (area is declared sourced): the proxy cannot see the
    # question, so only a value a tool of this session returned gets through
    client.call("runoff_depth", {"discharge": {"value": 1250, "unit": "cfs"}, "area": 30000})
    return client.close()


if __name__ == "__main__":
    sys.exit(main())
