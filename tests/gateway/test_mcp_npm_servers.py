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
import threading
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

from mcp_peers.driver import env  # noqa: E402

from mcp import Client, StdioServerParameters, types  # noqa: E402

TIMEOUT = 30
NODE = shutil.which("node")
NPM_ROOT = os.environ.get("QG_NPM_SERVERS")
# the versions .ci/run installs (npm ci of tests/mcp_peers/npm, which its lock file pins)
PACKAGES = {name.split("/")[1]: version for name, version in json.loads(
    (Path(__file__).parents[1] / "mcp_peers" / "npm" / "package.json").read_text())
    ["dependencies"].items()}

# the client warns that logging and resources/subscribe are gone from 2026-07-28; these servers
# speak 2025-11-25, where both are current
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


def needs_npm(fn):
    """Skipped, saying why, without node or without the installed servers."""
    fn = pytest.mark.skipif(not NPM_ROOT, reason=(
        "QG_NPM_SERVERS is not set: `npm install --prefix DIR "
        + " ".join(f"@modelcontextprotocol/{p}@{v}" for p, v in PACKAGES.items())
        + "` and set QG_NPM_SERVERS=DIR/node_modules"))(fn)
    return pytest.mark.skipif(NODE is None, reason="node is not installed here (Node 20+ runs "
                                                   "the npm reference servers)")(fn)


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


def run_all(*sessions) -> list:
    """Sessions at once (the direct and the proxied runs of a test); their results."""
    out: list = [None] * len(sessions)

    async def all_of():
        async def one(i, fn):
            out[i] = await fn()
        async with anyio.create_task_group() as tg:
            for i, fn in enumerate(sessions):
                tg.start_soon(one, i, fn)
    run(all_of)
    return out


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
    """The transcript with the server's clock and random ids taken out: dynamic resources say
    when they were made ("created at 5:52:11 PM", in text and inside base64 blobs), a URL
    elicitation has a random id; both differ between any two runs."""
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
    return scrub(CLOCK.sub("<time>", x)) if isinstance(x, str) else x


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
    ("trigger-url-elicitation", {"url": "https://example.org/consent?x=1"}),
    ("get-roots-list", {}),
    ("trigger-long-running-operation", {"duration": 0.2, "steps": 2}),
    ("get-sum", {"a": "2"}),                                      # refused by the server
]


async def everything_session(server, mode: str, calls: list, standalone: bool = True) -> dict:
    """One whole session against server-everything, as data. ``standalone=False`` leaves out
    the messages the server sends outside any request (logs, resource updates), which over
    Streamable HTTP travel on the optional GET stream: the SDK's HTTP client opens it after the
    handshake, and server-everything drops what it sends before that (the next one comes 5 s
    later), so whether the first arrives differs between any two direct runs."""
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
        ref = types.PromptReference(type="ref/prompt", name="completable-prompt")
        t["completions"] = [dump(await c.complete(ref, {"name": "department", "value": "E"})),
                            dump(await c.complete(ref, {"name": "name", "value": ""},
                                                  context_arguments={"department": "Sales"}))]
        t["ping"] = dump(await c.send_ping())
        # a call the client gives up on: it sends notifications/cancelled, and the session goes on
        try:
            await c.call_tool("trigger-long-running-operation", {"duration": 1, "steps": 1},
                              read_timeout_seconds=0.3)
            t["cancelled"] = "answered"
        except mcp.MCPError as e:
            t["cancelled"] = type(e).__name__
        t["calls"] = []
        for name, args in calls:
            progress: list = []

            async def on_progress(p, total, message, progress=progress):
                progress.append([p, total, message])
            result = await c.call_tool(name, args, progress_callback=on_progress)
            t["calls"].append({**plain(result), "progress": progress})
        # logging and subscriptions: each toggle sends its first message at once
        await c.set_logging_level("debug")
        t["logging"] = [scrub(plain(await c.call_tool("toggle-simulated-logging", {}))
                              ["content"][0]["text"])]
        if standalone:
            await rec.logged.wait()
        uri = "demo://resource/dynamic/text/1"
        await c.subscribe_resource(uri)
        t["subscribe"] = scrub(plain(await c.call_tool("toggle-subscriber-updates", {}))
                               ["content"][0]["text"])
        if standalone:
            await rec.updated.wait()
        await c.unsubscribe_resource(uri)
        # toggled off again, or the server's timers keep node alive after stdin closes and the
        # client waits 2 s before terminating it
        t["toggled_off"] = [scrub(plain(await c.call_tool(n, {}))["content"][0]["text"])
                            for n in ("toggle-simulated-logging", "toggle-subscriber-updates")]
    # server-everything asks for the roots on a timer 350 ms after initialisation, and again
    # from get-roots-list if that first answer has not arrived yet: where the request (and its
    # log line) falls among the rest, and whether it came once or twice, differs between any two
    # runs, with or without a proxy. Which requests and messages came does not.
    t["logged"] = sorted({json.dumps(m, sort_keys=True) for m in rec.logs})
    t["requests"] = sorted({json.dumps(r, sort_keys=True) for r in rec.requests})
    t["updated"] = [n for n in rec.notes if n[0] == "notifications/resources/updated"][:1]
    t["notes"] = sorted({n[0] for n in rec.notes})
    if not standalone:
        del t["logged"], t["updated"], t["notes"]
    return unclocked(t)


def everything_stdio() -> list[str]:
    return [NODE or "node", entry("server-everything"), "stdio"]


# Annotations a user might write for server-everything: temperatures in kelvin for get-sum, the
# documented seconds of the long-running operation, a count, and the units of the weather
# result (its outputSchema says "Temperature in celsius" and "Humidity percentage").
EVERYTHING_ANNOTATIONS = """
[tools."get-sum".params]
a = "K"
b = "K"
[tools."trigger-long-running-operation".params]
duration = "s"
steps = "1"
[tools."get-resource-links".params]
count = "1"
[tools."get-structured-content"]
returns = { temperature = "degC", humidity = "%" }
"""
ANNOTATED_TOOLS = {"get-sum", "trigger-long-running-operation", "get-resource-links",
                   "get-structured-content"}

# (tool, arguments through the proxy, the arguments the direct run sends or None, check)
ANNOTATED_CASES: list[tuple] = [
    ("get-sum", {"a": 2, "b": 3.5}, {"a": 2, "b": 3.5}, "same"),  # bare: the declared unit
    ("get-sum", {"a": "20 degC", "b": {"value": 10, "unit": "degC"}},
     {"a": 293.15, "b": 283.15}, "same"),
    ("trigger-long-running-operation", {"duration": "0.005 min", "steps": "2"},
     {"duration": 0.3, "steps": 2}, "same"),                      # with its progress
    ("trigger-long-running-operation", {"duration": {"value": 200, "unit": "ms"}},
     {"duration": 0.2}, "same"),                                  # steps left to the server
    ("get-resource-links", {"count": "2"}, {"count": 2}, "same"),
    ("get-structured-content", {"location": "New York"}, {"location": "New York"},
     "labelled"),                                                 # 33 degC, 82 %
    ("get-sum", {"a": 33, "b": 1}, None, ("refused", "degC")),    # copied from the result
    ("get-sum", {"a": "33 degC", "b": 1}, {"a": 306.15, "b": 1}, "same"),
    ("get-sum", {"a": "3 m", "b": 1}, None, ("refused", "K")),
    ("trigger-long-running-operation", {"duration": "2 kg"}, None, ("refused", "s")),
    ("get-sum", {"a": "20 degC"}, None, ("refused", "b")),        # required, asked for
]
DIRECT_CALLS = EVERYTHING_CALLS + [(c[0], c[2]) for c in ANNOTATED_CASES if c[2]]
# the base calls an annotated run makes unchanged (get-sum's are under annotation there)
UNTOUCHED = [i for i, c in enumerate(EVERYTHING_CALLS) if c[0] not in ANNOTATED_TOOLS]


@pytest.fixture(scope="module")
def everything_direct() -> dict:
    """The direct transcript every proxied run is compared with (the TypeScript SDK 1.x server
    speaks the 2025 revisions: an ``auto`` client settles on the same handshake as ``legacy``,
    which ``test_everything_passes_through_unchanged[auto]`` checks through the proxy)."""
    return run(lambda: everything_session(params(everything_stdio()), "legacy", DIRECT_CALLS))


def check_everything_direct(direct: dict) -> None:
    """The transcript holds what it claims to (a broken session on both sides would compare
    equal)."""
    assert direct["server"][0]["name"] == "mcp-servers/everything"
    assert direct["server"][1] == "2025-11-25"
    long = next(c for (n, _), c in zip(DIRECT_CALLS, direct["calls"])
                if n == "trigger-long-running-operation")
    assert long["progress"] == [[1.0, 2.0, None], [2.0, 2.0, None]]
    assert {json.loads(r)[0] for r in direct["requests"]} >= {"sampling", "elicitation", "roots"}
    assert '{"simulated": true}' in direct["logged"] and direct["updated"]
    assert direct["calls"][len(EVERYTHING_CALLS) - 1]["isError"] is True  # "a": "2" upstream
    assert direct["cancelled"] == "MCPError" and direct["ping"] == {}
    assert direct["completions"][0]["completion"]["values"] == ["Engineering"]
    kinds = {c["type"] for call in direct["calls"] for c in call["content"]}
    assert kinds >= {"text", "image", "resource_link", "resource"}


@needs_npm
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_everything_passes_through_unchanged(mode, everything_direct):
    check_everything_direct(everything_direct)
    guarded = run(lambda: everything_session(params(proxy("--", *everything_stdio())), mode,
                                             DIRECT_CALLS))
    same(everything_direct, guarded)


ANNOTATED_RUN = [EVERYTHING_CALLS[i] for i in UNTOUCHED] + [(c[0], c[1]) for c in ANNOTATED_CASES]


@needs_npm
def test_everything_annotated(everything_direct, tmp_path):
    ann = tmp_path / "everything.toml"
    ann.write_text(EVERYTHING_ANNOTATIONS)
    log = tmp_path / "guard.jsonl"      # with --log a refusal once hung the proxy
    guarded = run(lambda: everything_session(
        params(proxy("--annotations", str(ann), "--log", str(log), "--", *everything_stdio())),
        "legacy", ANNOTATED_RUN))
    check_annotated(everything_direct, guarded)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    refused = [c for c in ANNOTATED_CASES if c[2] is None]
    assert [(e["tool"], e["violation"]["code"]) for e in events if e["event"] == "violation"] \
        == [(c[0], code) for c, code in zip(refused, (
            "unconverted_carry_over", "dimensionality_error", "dimensionality_error",
            "invalid_arguments"))]


def check_annotated(direct: dict, guarded: dict) -> None:
    """The annotated run against the direct one: conversions, labels and refusals where the
    annotations ask for them, the rest unchanged."""
    same({k: v for k, v in direct.items() if k not in ("tools", "calls")},
         {k: v for k, v in guarded.items() if k not in ("tools", "calls")})
    d_tools = {t["name"]: t for t in direct["tools"]}
    g_tools = {t["name"]: t for t in guarded["tools"]}
    assert list(d_tools) == list(g_tools)
    same({n: t for n, t in d_tools.items() if n not in ANNOTATED_TOOLS},
         {n: t for n, t in g_tools.items() if n not in ANNOTATED_TOOLS})
    for name in ANNOTATED_TOOLS:       # required, defaults and the output schema's shape kept
        d, g = d_tools[name], g_tools[name]
        assert g["inputSchema"].get("required") == d["inputSchema"].get("required")
        for k, dp in d["inputSchema"]["properties"].items():
            if "default" in dp:
                assert g["inputSchema"]["properties"][k]["default"] == dp["default"]
    sc = g_tools["get-structured-content"]["outputSchema"]
    assert sc["required"] == d_tools["get-structured-content"]["outputSchema"]["required"]
    assert sc["properties"]["temperature"]["x-unit"] == "degC"
    assert g_tools["trigger-long-running-operation"]["inputSchema"]["properties"]["duration"][
        "x-unit"] == "s"
    same([direct["calls"][i] for i in UNTOUCHED], guarded["calls"][:len(UNTOUCHED)])
    d_extra = iter(direct["calls"][len(EVERYTHING_CALLS):])
    for (tool, args, d_args, check), got in zip(ANNOTATED_CASES, guarded["calls"][len(UNTOUCHED):],
                                                strict=True):
        where = f"{tool}({args})"
        want = next(d_extra) if d_args else None
        if check == "same":            # the converted value reached the server
            same(want, got)
            assert not got["isError"], where
        elif check == "labelled":      # the structured content the outputSchema declares, as
            # sent (the client validated it); the text labels each declared field
            assert not got["isError"] and got["structuredContent"] == want["structuredContent"]
            assert json.loads(got["content"][0]["text"]) == {**want["structuredContent"],
                "temperature": {"value": 33, "unit": "degC"},
                "humidity": {"value": 82, "unit": "%"}}, where
        else:                          # refused by the proxy, saying what to send
            assert got["isError"] is True, where
            text = got["content"][0]["text"]
            assert check[1] in text and "Send instead" in text, (where, text)
    carried = guarded["calls"][len(UNTOUCHED) + 6]["content"][0]["text"]
    assert "get-structured-content.return.temperature returned 33 degC" in carried
    assert '{"value": 33, "unit": "degC"}' in carried and "306.15 K" in carried


# ------------------------------------------------------------------ over HTTP

class Started:
    """A process that says on stderr when it is ready; the rest of its stderr is drained."""

    def __init__(self, argv: list[str], ready: str, **extra: str) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=env(**extra))
        seen = []
        for line in self.proc.stderr:
            seen.append(line)
            if ready in line:
                self.line = line.strip()
                break
        else:
            raise AssertionError(f"{argv} exited before saying {ready!r}: {''.join(seen)}")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def everything_http():
    port = free_port()
    server = Started([NODE or "node", entry("server-everything"), "streamableHttp"],
                     "listening on port", PORT=str(port))
    yield f"http://127.0.0.1:{port}/mcp"
    server.stop()




@needs_npm
def test_everything_http_upstream(everything_http, tmp_path):
    """A stdio client -> the proxy -> server-everything's Streamable HTTP endpoint, without
    and with annotations."""
    ann = tmp_path / "everything.toml"
    ann.write_text(EVERYTHING_ANNOTATIONS)
    direct, guarded, annotated = run_all(
        lambda: everything_session(everything_http, "legacy", DIRECT_CALLS, False),
        lambda: everything_session(params(proxy("--upstream", everything_http)), "legacy",
                                   DIRECT_CALLS, False),
        lambda: everything_session(params(proxy("--annotations", str(ann), "--upstream",
                                                everything_http)), "legacy", ANNOTATED_RUN,
                                   False))
    same(direct, guarded)
    assert direct["server"][0]["name"] == "mcp-servers/everything"
    assert {json.loads(r)[0] for r in direct["requests"]} >= {"sampling", "elicitation", "roots"}
    long = direct["calls"][DIRECT_CALLS.index(("trigger-long-running-operation",
                                                {"duration": 0.2, "steps": 2}))]
    assert long["progress"] == [[1.0, 2.0, None], [2.0, 2.0, None]]
    check_annotated(direct, annotated)


@needs_npm
def test_everything_behind_listen(everything_direct, tmp_path):
    """The SDK's HTTP client -> the proxy's --listen -> the stdio server: unannotated (the
    client in ``auto`` mode) and annotated (``legacy``), side by side."""
    check_everything_direct(everything_direct)
    ann = tmp_path / "everything.toml"
    ann.write_text(EVERYTHING_ANNOTATIONS)
    plain_l = Started(proxy("--listen", "0", "--", *everything_stdio()), "serving MCP")
    try:
        guarded_l = Started(proxy("--annotations", str(ann), "--listen", "0", "--",
                                  *everything_stdio()), "serving MCP")
        try:
            guarded, annotated = run_all(
                lambda: everything_session(plain_l.line.rsplit(" ", 1)[1], "auto", DIRECT_CALLS),
                lambda: everything_session(guarded_l.line.rsplit(" ", 1)[1], "legacy",
                                           ANNOTATED_RUN))
        finally:
            guarded_l.stop()
    finally:
        plain_l.stop()
    same(everything_direct, guarded)
    check_annotated(everything_direct, annotated)


# ------------------------------------------------------------------ server-memory, server-filesystem

async def sequence(server, mode: str, calls: list, root: str) -> dict:
    """The tool listing and each call's result, the run's own folder written as <root>."""
    async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as c:
        tools = await every(c.list_tools, "tools")
        results = [plain(await c.call_tool(n, a)) for n, a in calls]
    return json.loads(json.dumps({"tools": tools, "calls": results}).replace(root, "<root>"))


MEMORY_CALLS: list[tuple[str, dict]] = [
    ("create_entities", {"entities": [
        {"name": "Gauge 07374000", "entityType": "river_gauge",
         "observations": ["Mississippi River at Baton Rouge", "discharge in ft³/s"]},
        {"name": "Baton Rouge", "entityType": "city", "observations": ["population 220 000"]}]}),
    ("create_relations", {"relations": [
        {"from": "Gauge 07374000", "to": "Baton Rouge", "relationType": "located_in"}]}),
    ("add_observations", {"observations": [
        {"entityName": "Baton Rouge", "contents": ["elevation 17 m NAVD88", "ünïcödé ✓"]}]}),
    ("read_graph", {}),
    ("search_nodes", {"query": "river"}),
    ("open_nodes", {"names": ["Baton Rouge", "nowhere"]}),
    ("delete_observations", {"deletions": [
        {"entityName": "Baton Rouge", "observations": ["population 220 000"]}]}),
    ("delete_relations", {"relations": [
        {"from": "Gauge 07374000", "to": "Baton Rouge", "relationType": "located_in"}]}),
    ("delete_entities", {"entityNames": ["Gauge 07374000"]}),
    ("read_graph", {}),
    ("create_entities", {"entities": [{"name": 3}]}),            # refused by the server
]


@needs_npm
@pytest.mark.parametrize("mode", ["legacy"])  # auto: server-everything's tests
def test_memory_server_passes_through_unchanged(mode, tmp_path):
    argv = [NODE or "node", entry("server-memory")]
    sessions = []
    for label, command in (("direct", argv), ("guarded", proxy("--", *argv))):
        root = tmp_path / label
        root.mkdir()
        server = params(command, MEMORY_FILE_PATH=str(root / "memory.jsonl"))
        sessions.append(lambda server=server, root=root: sequence(server, mode, MEMORY_CALLS,
                                                                   str(root)))
    direct, guarded = run_all(*sessions)
    runs = {"direct": direct, "guarded": guarded}
    for label in runs:                                    # the graph went where it was told
        assert (tmp_path / label / "memory.jsonl").is_file()
    same(runs["direct"], runs["guarded"])
    final = runs["direct"]["calls"][-2]["structuredContent"]
    assert [e["name"] for e in final["entities"]] == ["Baton Rouge"]
    assert final["entities"][0]["observations"] == ["elevation 17 m NAVD88", "ünïcödé ✓"]
    assert runs["direct"]["calls"][-1]["isError"] is True
    assert all(not c["isError"] for c in runs["direct"]["calls"][:-1])


FS_ANNOTATIONS = """
[tools.read_text_file.params]
head = "1"
tail = "1"
"""


def fs_calls(root: Path, annotated: bool) -> list[tuple]:
    """(tool, arguments through the proxy, arguments direct or None, check)"""
    r = str(root)
    lines = "".join(f"reading {i}: {i * 0.25} m\n" for i in range(12))
    cases = [
        ("list_allowed_directories", {}, {}, "same"),
        ("create_directory", {"path": f"{r}/data"}, {"path": f"{r}/data"}, "same"),
        ("write_file", {"path": f"{r}/data/stage.txt", "content": lines},
         {"path": f"{r}/data/stage.txt", "content": lines}, "same"),
        ("write_file", {"path": f"{r}/data/b.txt", "content": "β\n"},
         {"path": f"{r}/data/b.txt", "content": "β\n"}, "same"),
        ("read_text_file", {"path": f"{r}/data/stage.txt"}, {"path": f"{r}/data/stage.txt"},
         "same"),
        ("read_text_file", {"path": f"{r}/data/stage.txt", "head": 2},
         {"path": f"{r}/data/stage.txt", "head": 2}, "same"),
        ("read_multiple_files", {"paths": [f"{r}/data/b.txt", f"{r}/data/none.txt"]},
         {"paths": [f"{r}/data/b.txt", f"{r}/data/none.txt"]}, "same"),
        ("edit_file", {"path": f"{r}/data/b.txt", "edits": [{"oldText": "β", "newText": "γ"}]},
         {"path": f"{r}/data/b.txt", "edits": [{"oldText": "β", "newText": "γ"}]}, "same"),
        ("list_directory", {"path": f"{r}/data"}, {"path": f"{r}/data"}, "same"),
        ("list_directory_with_sizes", {"path": f"{r}/data", "sortBy": "size"},
         {"path": f"{r}/data", "sortBy": "size"}, "same"),
        ("directory_tree", {"path": r}, {"path": r}, "same"),
        ("search_files", {"path": r, "pattern": "*.txt"}, {"path": r, "pattern": "*.txt"},
         "same"),
        ("move_file", {"source": f"{r}/data/b.txt", "destination": f"{r}/c.txt"},
         {"source": f"{r}/data/b.txt", "destination": f"{r}/c.txt"}, "same"),
        ("read_text_file", {"path": "/etc/hostname"}, {"path": "/etc/hostname"}, "same"),
    ]
    if annotated:
        p = f"{r}/data/stage.txt"
        cases += [
            ("read_text_file", {"path": p, "tail": "3"}, {"path": p, "tail": 3}, "same"),
            ("read_text_file", {"path": p, "head": {"value": 1, "unit": "1"}},
             {"path": p, "head": 1}, "same"),
            ("read_text_file", {"path": p, "head": "2 m"}, None, ("refused", "dimensionless")),
        ]
    return cases


@needs_npm
@pytest.mark.parametrize("annotated", [False, True])
def test_filesystem_server(annotated, tmp_path):
    argv = [NODE or "node", entry("server-filesystem")]
    opts = []
    if annotated:
        (tmp_path / "fs.toml").write_text(FS_ANNOTATIONS)
        opts = ["--annotations", str(tmp_path / "fs.toml")]
    sessions = []
    for label in ("direct", "guarded"):
        root = (tmp_path / label).resolve()
        root.mkdir()
        cases = fs_calls(root, annotated)
        if label == "direct":
            server, calls = params([*argv, str(root)]), [(c[0], c[2]) for c in cases if c[2]
                                                        is not None]
        else:
            server = params(proxy(*opts, "--", *argv, str(root)))
            calls = [(c[0], c[1]) for c in cases]
        sessions.append(lambda server=server, calls=calls, root=root: sequence(
            server, "legacy", calls, str(root)))
    d, g = run_all(*sessions)
    for label in ("direct", "guarded"):                   # each run really wrote its folder
        assert (tmp_path / label / "c.txt").read_text() == "γ\n"
    cases = fs_calls(Path("<root>"), annotated)
    direct = iter(d["calls"])
    for (tool, args, d_args, check), got in zip(cases, g["calls"], strict=True):
        want = next(direct) if d_args is not None else None
        if check == "same":
            same(want, got)
        else:
            assert got["isError"] is True and check[1] in got["content"][0]["text"], got
    denied = d["calls"][13]
    assert denied["isError"] and "outside allowed directories" in denied["content"][0]["text"]
    assert d["calls"][5]["structuredContent"]["content"] == "reading 0: 0.0 m\nreading 1: 0.25 m"
    if not annotated:
        same(d["tools"], g["tools"])
    else:
        d_tools = {t["name"]: t for t in d["tools"]}
        g_tools = {t["name"]: t for t in g["tools"]}
        same({n: t for n, t in d_tools.items() if n != "read_text_file"},
             {n: t for n, t in g_tools.items() if n != "read_text_file"})
        gp = g_tools["read_text_file"]["inputSchema"]
        assert gp["required"] == d_tools["read_text_file"]["inputSchema"]["required"]
        assert gp["properties"]["head"]["x-unit"] == "1"
        assert g_tools["read_text_file"]["outputSchema"] == \
            d_tools["read_text_file"]["outputSchema"]


# ------------------------------------------------------------------ --check sees what a client sees

CHECK_ANNOTATIONS = """
[tools."trigger-sampling-request".params]
maxTokens = "1"
[tools."get-sum".params]
a = "K"
"""


@needs_npm
def test_check_sees_the_conditional_tools(everything_http, tmp_path):
    """server-everything lists trigger-sampling-request (and three more) only to clients that
    declare sampling (elicitation, roots); --check declares them, so annotating such a tool is
    not reported as a tool the server lacks (it was: exit 5)."""
    ann = tmp_path / "check.toml"
    ann.write_text(CHECK_ANNOTATIONS)
    checks = {where[0]: subprocess.Popen(proxy("--annotations", str(ann), "--check", *where),
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, env=env())
              for where in (["--", *everything_stdio()], ["--upstream", everything_http])}
    for where, p in checks.items():    # over stdio and over HTTP, run side by side
        out, err = p.communicate(timeout=TIMEOUT)
        assert p.returncode == 0, (where, out, err)
        assert "guarded   trigger-sampling-request(maxTokens [1])" in out
        for name in ("get-roots-list", "trigger-elicitation-request", "trigger-url-elicitation"):
            assert f"untouched {name}\n" in out, (where, out)


def test_check_declares_what_a_full_client_declares_and_answers_honestly(tmp_path):
    """The same without node: a server listing tools by capability, and asking the checking
    client for roots, an elicitation and a sample, which it answers without inventing any."""
    ann = tmp_path / "cap.toml"
    ann.write_text('[tools.ask_model.params]\nn = "m"\n[tools.show_roots.params]\nn = "s"\n')
    answers = tmp_path / "answers.jsonl"
    server = [sys.executable, str(Path(__file__).parents[1] / "mcp_peers" / "capability_server.py"),
              str(answers)]
    r = subprocess.run(proxy("--annotations", str(ann), "--check", "--", *server),
                       capture_output=True, text=True, env=env(), timeout=TIMEOUT)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert r.stdout.splitlines() == [
        "guarded   ask_model(n [m])", "guarded   show_roots(n [s])", "untouched always",
        "untouched ask_user", "guarding 2 parameters and 0 results on 2 of 4 tools",
        "annotations match the server"]
    got = [json.loads(line) for line in answers.read_text().splitlines()]
    assert got == [{"roots/list": {"roots": []}},
                   {"elicitation/create": {"action": "decline"}},
                   {"sampling/createMessage": {
                       "code": -1, "message": "quantity-guard-mcp --check does not sample"}}]


# ------------------------------------------------------------------ --log with a refused call

def test_a_refused_call_is_answered_and_logged_with_log(tmp_path):
    """With --log, a refused call used to hang the proxy for good: the refusal was logged while
    the policy's (non-reentrant) lock was held, and writing the log takes that lock. Found with
    server-everything (get-sum a carried over from a degC result); pinned here without node."""
    from quantity_guard.mcp.policy import build_policy
    ann = tmp_path / "a.toml"
    ann.write_text('[tools.add.params]\na = "m"\n')
    log = tmp_path / "guard.jsonl"
    policy = build_policy(str(ann), log_path=str(log))
    out: list = []
    done = threading.Event()

    def decide() -> None:
        out.append(policy.check_call("add", {"a": "3 kg"}))
        out.append(policy.check_call("add", {"a": "3 km"}))
        done.set()
    threading.Thread(target=decide, daemon=True).start()
    assert done.wait(10), "check_call never returned: a refusal deadlocked with --log"
    policy.close()
    assert out[0].action == "refuse" and "kg" in out[0].payload["content"][0]["text"]
    assert out[1] == ("forward", {"a": 3000})
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in events] == ["violation", "call"]
    assert events[0]["violation"]["code"] == "dimensionality_error"
