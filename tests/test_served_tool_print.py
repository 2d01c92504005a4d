"""A served tool's print() never reaches the JSON-RPC stream of quantity_guard.mcp.server, even
when stdout is block-buffered (no PYTHONUNBUFFERED) and the server returns from serve() before
the process exits: what a tool prints goes to stderr while serving."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TOOLS = textwrap.dedent("""
    import sys
    from quantity_guard.mcp import serve

    class Box:
        def list_tools(self):
            return [{"name": "noisy", "inputSchema": {"type": "object"}}]

        def call_tool(self, name, arguments):
            print("printed by the tool")
            sys.stdout.write("written by the tool\\n")
            return {"content": [{"type": "text", "text": "ok"}]}

    print("printed before serving", file=sys.stderr)
    code = serve(Box())
    print("printed after serving")
    sys.exit(code)
""")


@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_tool_print_goes_to_stderr_and_the_wire_carries_only_json(tmp_path, unbuffered):
    script = tmp_path / "server.py"
    script.write_text(TOOLS)
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    environ["PYTHONPATH"] = str(ROOT)
    if unbuffered:
        environ["PYTHONUNBUFFERED"] = "1"
    requests = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                 "params": {"name": "noisy", "arguments": {}}} for i in (1, 2)]
    out = subprocess.run([sys.executable, str(script)], input="".join(
        json.dumps(r) + "\n" for r in requests), capture_output=True, text=True, env=environ,
        timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    wire = [json.loads(line) for line in lines if line.startswith("{")]
    assert sorted(m["id"] for m in wire) == [1, 2]
    # after serve() returns, stdout is the process's own again
    assert [line for line in lines if not line.startswith("{")] == ["printed after serving"]
    assert out.stderr.count("printed by the tool") == 2
    assert out.stderr.count("written by the tool") == 2
