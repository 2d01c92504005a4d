"""quantity-guard-mcp in front of the official reference MCP servers published on npm
(``@modelcontextprotocol/server-everything``, ``server-memory`` and ``server-filesystem``,
TypeScript SDK), driven by the official Python SDK client.

Each server runs directly and through the proxy; the client records a whole session as data
(tools, resources, templates, prompts, completions, every tool result, progress notifications,
log messages, resource updates and the server->client requests it answered), and the two
transcripts are compared:

* unannotated, the proxied transcript is the direct one, over stdio in both client modes, over
  ``--upstream URL`` in front of server-everything's Streamable HTTP mode, and over ``--listen``
  in front of the stdio server;
* annotated, a converted argument reaches the server as the number the direct run sent
  (``"0.005 min"`` of a duration in seconds arrives as ``0.3``, with the same progress
  notifications), a labelled result keeps the structured content its ``outputSchema`` declares
  (the SDK client validates it), a bare number copied from a unit-bearing result is refused
  with what to send instead, and everything the annotations do not touch is unchanged.

The packages are not Python packages: CI installs pinned versions with npm and points
``QG_NPM_SERVERS`` at the ``node_modules`` folder (``.ci/run``). Without ``node`` or without
that variable the tests are skipped, saying so; with the variable set, a missing package fails.
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import env  # noqa: E402

from mcp import Client, StdioServerParameters, types  # noqa: E402

TIMEOUT = 30
NODE = shutil.which("node")
NPM_ROOT = os.environ.get("QG_NPM_SERVERS")
# the versions .ci/run installs (and these tests were written against)
PACKAGES = {"server-everything": "2026.8.31", "server-memory": "2026.8.31",
            "server-filesystem": "2026.8.31"}

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed here (Node 20+ runs the npm "
                                            "reference servers)"),
    pytest.mark.skipif(not NPM_ROOT, reason="QG_NPM_SERVERS is not set: `npm install --prefix DIR "
                       + " ".join(f"@modelcontextprotocol/{p}@{v}" for p, v in PACKAGES.items())
                       + "` and set QG_NPM_SERVERS=DIR/node_modules"),
]


def entry(package: str) -> str:
    """The server's script; a package missing under QG_NPM_SERVERS fails the test (CI asked
    for it)."""
    path = Path(NPM_ROOT or "") / "@modelcontextprotocol" / package / "dist" / "index.js"
    if not path.is_file():
        pytest.fail(f"QG_NPM_SERVERS={NPM_ROOT} has no {path}: install "
                    f"@modelcontextprotocol/{package}@{PACKAGES[package]} there")
    return str(path)


def params(argv: list[str], **extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env(**extra))


def proxy(*options: str) -> list[str]:
    return [sys.executable, "-m", "quantity_guard.mcp", *options]


def run(fn):
    async def bounded():
        with anyio.fail_after(TIMEOUT * 2):
            return await fn()
    return anyio.run(bounded)


def dump(model) -> object:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def plain(result) -> dict:
    """A CallToolResult as comparable data."""
    return {"isError": bool(result.is_error), "content": [dump(c) for c in result.content],
            "structuredContent": result.structured_content}


async def every(list_page, field: str) -> list:
    out, cursor = [], None
    while True:
        page = await list_page(cursor=cursor)
        out += [dump(x) for x in getattr(page, field)]
        cursor = page.next_cursor
        if not cursor:
            return out


# ------------------------------------------------------------------ the client side

class Recorder:
    """The client's callbacks: answers sampling, elicitation and roots requests the same way
    every run and records what the server asked and notified."""

    def __init__(self) -> None:
        self.requests: list = []
        self.logs: list = []
        self.notes: list = []
        self.updated = anyio.Event()
        self.logged = anyio.Event()

    async def sampling(self, ctx, p):
        self.requests.append(("sampling", dump(p)))
        last = p.messages[-1].content
        return types.CreateMessageResult(
            role="assistant", model="recorder-1", stop_reason="endTurn",
            content=types.TextContent(type="text", text=f"answer to {last.text!r}"))

    async def elicitation(self, ctx, p):
        self.requests.append(("elicitation", p.message))
        schema = getattr(p, "requested_schema", None) or {}
        content = {}
        for name, prop in (schema.get("properties") or {}).items():
            kind = prop.get("type")
            content[name] = (prop["enum"][0] if "enum" in prop else
                             True if kind == "boolean" else
                             prop.get("minimum", 3) if kind in ("number", "integer") else
                             "x@example.org" if prop.get("format") == "email" else
                             "2025-01-02" if prop.get("format") == "date" else
                             "https://example.org" if prop.get("format") == "uri" else "Ada")
        return types.ElicitResult(action="accept", content=content)

    async def roots(self, ctx):
        self.requests.append(("roots", None))
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/project", name="project")])

    async def logging(self, p):
        entry = dump(p)
        # toggle-simulated-logging sends a message of a random level: that it came is compared
        if re.fullmatch(r"\w+[- ]level[- ]message", str(entry["data"]), re.I):
            entry = {"simulated": True}
            self.logged.set()
        self.logs.append(entry)

    async def messages(self, message):
        if isinstance(message, Exception):
            self.notes.append(("exception", repr(message)))
        elif isinstance(message, types.ServerNotification) or hasattr(message, "method"):
            root = getattr(message, "root", message)
            self.notes.append((root.method, dump(getattr(root, "params", None))
                               if getattr(root, "params", None) is not None else None))
            if root.method == "notifications/resources/updated":
                self.updated.set()

    def client(self, server, mode: str) -> Client:
        return Client(server, mode=mode, read_timeout_seconds=TIMEOUT,
                      sampling_callback=self.sampling, elicitation_callback=self.elicitation,
                      list_roots_callback=self.roots, logging_callback=self.logging,
                      message_handler=self.messages)


def differences(a, b, path="") -> list[str]:
    """Where two transcripts differ, as readable paths (for the assertion message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in differences(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{path}.{k}")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r:.300} != {b!r:.300}"]


def same(direct, guarded) -> None:
    diff = differences(direct, guarded)
    assert not diff, "\n".join(diff[:20])


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


CLOCK = re.compile(r"\b\d{1,2}:\d\d:\d\d( [AP]M)?")


def scrub(text: str) -> str:
    """Session ids (one per HTTP session, absent over stdio) differ between any two runs."""
    return UUID.sub("<session>", text)


def unclocked(x):
    """The transcript with the server's clock taken out: dynamic resources say when they were
    made ("created at 5:52:11 PM", in text and inside base64 blobs), which differs between any
    two runs."""
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k == "blob" and isinstance(v, str):
                try:
                    v = "decoded: " + base64.b64decode(v, validate=True).decode()
                except (ValueError, UnicodeDecodeError):
                    pass
            out[k] = unclocked(v)
        return out
    if isinstance(x, (list, tuple)):
        return [unclocked(v) for v in x]
    return CLOCK.sub("<time>", x) if isinstance(x, str) else x


# ------------------------------------------------------------------ server-everything

EVERYTHING_CALLS: list[tuple[str, dict]] = [
    ("echo", {"message": "héllo ✓"}),
    ("get-annotated-message", {"messageType": "error", "includeImage": True}),
    ("get-annotated-message", {"messageType": "success"}),
    ("get-resource-links", {}),                                   # count defaults to 3
    ("get-resource-links", {"count": 2}),
    ("get-resource-reference", {}),                               # Text, 1
    ("get-resource-reference", {"resourceType": "Blob", "resourceId": 4}),
    ("get-structured-content", {"location": "Chicago"}),
    ("get-structured-content", {"location": "Los Angeles"}),
    ("get-sum", {"a": 2, "b": 3.5}),
    ("get-sum", {"a": -1e300, "b": 12345678901234567890}),
    ("get-tiny-image", {}),
    ("gzip-file-as-resource", {"name": "t.txt.gz", "data": "data:text/plain,hello%20world"}),
    ("trigger-sampling-request", {"prompt": "two plus two?", "maxTokens": 7}),
    ("trigger-elicitation-request", {}),
    ("get-roots-list", {}),
    ("get-sum", {"a": "2"}),                                      # refused by the server
]


async def everything_session(server, mode: str, *, calls=EVERYTHING_CALLS, extra=()) -> dict:
    """One whole session against server-everything, as data."""
    rec = Recorder()
    t: dict = {}
    async with rec.client(server, mode) as c:
        t["server"] = [dump(c.server_info), c.protocol_version, c.instructions,
                       dump(c.server_capabilities)]
        t["tools"] = await every(c.list_tools, "tools")
        t["resources"] = await every(c.list_resources, "resources")
        t["templates"] = await every(c.list_resource_templates, "resource_templates")
        t["prompts"] = await every(c.list_prompts, "prompts")
        t["read"] = [dump(await c.read_resource(u)) for u in (
            t["resources"][0]["uri"], "demo://resource/dynamic/text/7",
            "demo://resource/dynamic/blob/2")]
        t["got_prompts"] = [dump(await c.get_prompt(n, a)) for n, a in (
            ("simple-prompt", None), ("args-prompt", {"city": "Oslo"}),
            ("args-prompt", {"city": "Oslo", "state": "Viken"}),
            ("completable-prompt", {"department": "Engineering", "name": "Alice"}),
            ("resource-prompt", {"resourceType": "Text", "resourceId": "3"}))]
        t["completions"] = [dump(await c.complete(types.PromptReference(
            type="ref/prompt", name="completable-prompt"), {"name": "department", "value": "E"}))]
        t["calls"] = [plain(await c.call_tool(n, a)) for n, a in calls]
        progress: list = []

        async def on_progress(p, total, message):
            progress.append((p, total, message))
        t["long"] = [plain(await c.call_tool("trigger-long-running-operation",
                                             {"duration": 0.2, "steps": 2},
                                             progress_callback=on_progress)), progress]
        t["extra"] = []
        for name, args in extra:
            got: list = []

            async def on(p, total, message, got=got):
                got.append((p, total, message))
            t["extra"].append([plain(await c.call_tool(name, args, progress_callback=on)), got])
        # logging and subscriptions: each toggle sends its first message at once
        await c.set_logging_level("debug")
        t["logging"] = [scrub(plain(await c.call_tool("toggle-simulated-logging", {}))
                              ["content"][0]["text"])]
        await rec.logged.wait()
        uri = "demo://resource/dynamic/text/1"
        await c.subscribe_resource(uri)
        t["subscribe"] = scrub(plain(await c.call_tool("toggle-subscriber-updates", {}))
                               ["content"][0]["text"])
        await rec.updated.wait()
        await c.unsubscribe_resource(uri)
    # server-everything asks for the roots on a timer 350 ms after initialisation, and again
    # from get-roots-list if that first answer has not arrived yet: where the request (and its
    # log line) falls among the rest, and whether it came once or twice, differs between any two
    # runs, with or without a proxy. Which requests and messages came does not.
    t["logged"] = sorted({json.dumps(m, sort_keys=True) for m in rec.logs})
    t["requests"] = sorted({json.dumps(r, sort_keys=True) for r in rec.requests})
    t["updated"] = [n for n in rec.notes if n[0] == "notifications/resources/updated"][:1]
    t["notes"] = sorted({n[0] for n in rec.notes})
    return unclocked(t)


def everything_stdio() -> list[str]:
    return [NODE or "node", entry("server-everything"), "stdio"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_everything_passes_through_unchanged(mode):
    direct = run(lambda: everything_session(params(everything_stdio()), mode))
    guarded = run(lambda: everything_session(params(proxy("--", *everything_stdio())), mode))
    same(direct, guarded)
    # the transcript holds what it claims to (a broken session would compare equal too)
    assert direct["server"][0]["name"] == "mcp-servers/everything"
    assert direct["long"][1] == [[1.0, 2.0, None], [2.0, 2.0, None]]
    assert {json.loads(r)[0] for r in direct["requests"]} >= {"sampling", "elicitation", "roots"}
    assert '{"simulated": true}' in direct["logged"] and direct["updated"]
    assert direct["calls"][-1]["isError"] is True               # "a": "2" refused upstream
    kinds = {c["type"] for call in direct["calls"] for c in call["content"]}
    assert kinds >= {"text", "image", "resource_link", "resource"}
