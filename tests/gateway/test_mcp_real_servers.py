"""quantity-guard-mcp in front of published MCP servers, driven by the official SDK client in both
protocol eras: ``mcp-server-time``, ``mcp-server-git`` (on a repository made here) and a server
built with the SDK's FastMCP API (tests/mcp_peers/mcpserver_tools.py).

Each server is called directly and through the proxy, without annotations and with annotations
on numeric parameters and results (issue #12). Wherever nothing needed converting or refusing,
the guarded run returns what the direct run returns; where a value was converted, it returns
what the direct run returns for the converted value; a labelled result keeps its structured
content and carries the unit in its text.

The published servers are not in the dev extra: install them beside it
(``pip install mcp-server-time mcp-server-git``); their tests are skipped, saying so, where they
are absent.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

from mcp_peers.driver import PEERS, env  # noqa: E402

from mcp import Client, StdioServerParameters  # noqa: E402

TIMEOUT = 60
MODES = ["auto", "legacy"]
MCPSERVER_TOOLS = str(PEERS / "mcpserver_tools.py")


def _needs(module: str, package: str):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"{package} is not installed here (pip install {package})")


def params(argv: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env())


def through_proxy(upstream: list[str], annotations: Path | None) -> StdioServerParameters:
    opts = ["--annotations", str(annotations)] if annotations is not None else []
    return params([sys.executable, "-m", "quantity_guard.mcp", *opts, "--", *upstream])


def run(fn):
    async def bounded():
        with anyio.fail_after(TIMEOUT * 2):
            return await fn()
    return anyio.run(bounded)


def plain(result) -> dict:
    """A CallToolResult as comparable data."""
    return {"isError": bool(result.is_error),
            "content": [c.model_dump(mode="json", exclude_none=True) for c in result.content],
            "structuredContent": result.structured_content}


async def session(server: StdioServerParameters, mode: str, calls: list[tuple[str, dict]]):
    """List the tools (every page) and make the calls; returns (tools by name, results)."""
    async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
        tools, cursor = {}, None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.update({t.name: t.model_dump(mode="json", by_alias=True, exclude_none=True)
                          for t in page.tools})
            cursor = page.next_cursor
            if not cursor:
                break
        results = [plain(await client.call_tool(name, args)) for name, args in calls]
        return tools, results


def compare(upstream: list[str], mode: str, cases: list[tuple], annotations: Path | None):
    """Run ``cases`` -- (tool, arguments through the proxy, arguments direct or None, check) --
    directly and through the proxy; returns (direct tools, guarded tools, [(case, direct
    result or None, guarded result)])."""
    direct_calls = [(c[0], c[2]) for c in cases if c[2] is not None]
    d_tools, d_results = run(lambda: session(params(upstream), mode, direct_calls))
    g_tools, g_results = run(lambda: session(through_proxy(upstream, annotations), mode,
                                             [(c[0], c[1]) for c in cases]))
    it = iter(d_results)
    paired = [(c, next(it) if c[2] is not None else None, g) for c, g in zip(cases, g_results)]
    return d_tools, g_tools, paired


def check_pairs(paired) -> None:
    for (tool, args, _, check), direct, guarded in paired:
        where = f"{tool}({args})"
        if check == "same":
            assert guarded == direct, where
            assert not direct["isError"], where
        elif check == "labelled":  # the unit is added to the text; structure and number kept
            assert not guarded["isError"] and guarded["structuredContent"] == \
                direct["structuredContent"], where
            label = json.loads(guarded["content"][0]["text"])
            assert set(label) == {"value", "unit"}, where
            assert label["value"] == pytest.approx(float(direct["content"][0]["text"])), where
        else:  # ("refused", words): answered by the proxy, with what to send
            assert guarded["isError"] is True, where
            assert check[1] in guarded["content"][0]["text"], (where, guarded)


def same_listing(direct: dict, guarded: dict) -> None:
    assert direct == guarded


def kept_shape(direct_tool: dict, guarded_tool: dict, params_guarded: dict) -> None:
    """What the upstream declared survives the rewrite: required, defaults, integer types and
    the shape of the output schema."""
    d, g = direct_tool["inputSchema"], guarded_tool["inputSchema"]
    assert g.get("required") == d.get("required")
    for name, unit in params_guarded.items():
        dp, gp = d["properties"][name], g["properties"][name]
        assert gp["x-unit"] == unit
        if "default" in dp:
            assert gp["default"] == dp["default"]
        if dp.get("type") == "integer":
            assert {"type": "integer"} in gp["anyOf"] and {"type": "number"} not in gp["anyOf"]
            assert "whole number" in gp["description"]
    if "outputSchema" not in direct_tool:
        assert "outputSchema" not in guarded_tool
    else:
        do, go = direct_tool["outputSchema"], guarded_tool["outputSchema"]
        assert go.get("required") == do.get("required")
        assert set(go.get("properties", {})) == set(do.get("properties", {}))
        for k, v in do.get("properties", {}).items():
            assert {kk: vv for kk, vv in go["properties"][k].items()
                    if not kk.startswith("x-") and kk != "description"} == \
                {kk: vv for kk, vv in v.items() if kk != "description"}


# ------------------------------------------------------------------ mcp-server-time

TIME = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "Etc/UTC"]
TIME_CASES = [
    ("convert_time", {"source_timezone": "Europe/London", "time": "14:00",
                      "target_timezone": "Asia/Tokyo"}, None, "same"),
    ("convert_time", {"source_timezone": "America/Chicago", "time": "09:30",
                      "target_timezone": "Etc/UTC"}, None, "same"),
]


@_needs("mcp_server_time", "mcp-server-time")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("annotated", [False, True])
def test_time_server(mode, annotated, tmp_path):
    ann = None
    if annotated:  # a non-numeric structured result under a unit annotation passes unchanged
        ann = tmp_path / "time.toml"
        ann.write_text('[tools.convert_time]\nreturns = "h"\n')
    cases = [(t, a, a, c) for t, a, _, c in TIME_CASES]
    d_tools, g_tools, paired = compare(TIME, mode, cases, ann)
    check_pairs(paired)
    if not annotated:
        same_listing(d_tools, g_tools)
    else:
        assert g_tools["get_current_time"] == d_tools["get_current_time"]
        assert g_tools["convert_time"]["outputSchema"] == d_tools["convert_time"]["outputSchema"]


# ------------------------------------------------------------------ mcp-server-git

@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("repo")
    e = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
         "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=e)
    for i in range(4):
        (path / "notes.txt").write_text("".join(f"line {j}\n" for j in range(i * 5 + 5)))
        stamp = f"2025-01-0{i + 1}T12:00:00+00:00"
        subprocess.run(["git", "-C", str(path), "add", "notes.txt"], check=True, env=e)
        subprocess.run(["git", "-C", str(path), "commit", "-q", "-m", f"commit {i}"], check=True,
                       env={**e, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    (path / "notes.txt").write_text("".join(f"line {j}\n" for j in range(30)).replace("7", "seven"))
    return str(path)


def git_cases(repo: str, annotated: bool) -> list[tuple]:
    r = {"repo_path": repo}
    cases = [
        ("git_log", r, r, "same"),                                   # max_count omitted
        ("git_log", {**r, "max_count": 2}, {**r, "max_count": 2}, "same"),
        ("git_status", r, r, "same"),
        ("git_diff_unstaged", r, r, "same"),                          # context_lines omitted
        ("git_diff_unstaged", {**r, "context_lines": 1}, {**r, "context_lines": 1}, "same"),
        ("git_branch", {**r, "branch_type": "local"}, {**r, "branch_type": "local"}, "same"),
    ]
    if annotated:
        cases += [
            ("git_log", {**r, "max_count": "2"}, {**r, "max_count": 2}, "same"),
            ("git_log", {**r, "max_count": {"value": 3, "unit": "1"}}, {**r, "max_count": 3},
             "same"),
            ("git_log", {**r, "max_count": "1.5"}, None, ("refused", "whole number")),
            ("git_log", {**r, "max_count": "2 m"}, None, ("refused", "dimensionless")),
            ("git_diff_unstaged", {**r, "context_lines": "0"}, {**r, "context_lines": 0}, "same"),
        ]
    return cases


@_needs("mcp_server_git", "mcp-server-git")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("annotated", [False, True])
def test_git_server(mode, annotated, repo, tmp_path):
    ann = None
    if annotated:
        ann = tmp_path / "git.toml"
        ann.write_text('[tools.git_log.params]\nmax_count = "1"\n'
                       '[tools.git_diff_unstaged.params]\ncontext_lines = "1"\n')
    upstream = [sys.executable, "-m", "mcp_server_git", "--repository", repo]
    d_tools, g_tools, paired = compare(upstream, mode, git_cases(repo, annotated), ann)
    check_pairs(paired)
    assert "commit 3" in paired[0][2]["content"][0]["text"]
    if not annotated:
        same_listing(d_tools, g_tools)
    else:
        kept_shape(d_tools["git_log"], g_tools["git_log"], {"max_count": "1"})
        kept_shape(d_tools["git_diff_unstaged"], g_tools["git_diff_unstaged"],
                   {"context_lines": "1"})
        assert g_tools["git_status"] == d_tools["git_status"]


# ------------------------------------------------------------------ a FastMCP-built server

MCPSERVER = [sys.executable, MCPSERVER_TOOLS]
MCPSERVER_ANNOTATIONS = """
[tools.fetch_text.params]
max_length = "1"
[tools.wait.params]
milliseconds = "ms"
[tools.add]
returns = "m"
[tools.add.params]
a = "m"
b = "m"
[tools.calculate]
returns = "1"
[tools.is_equal]
returns = "1"
[tools.sentence]
returns = "1"
[tools.reading]
returns = { distance = "m" }
"""


def mcpserver_cases(annotated: bool) -> list[tuple]:
    text = {"text": "abcdefghij" * 600}
    cases = [
        ("fetch_text", text, text, "same"),                            # default 5000 upstream
        ("fetch_text", {**text, "max_length": 7}, {**text, "max_length": 7}, "same"),
        ("wait", {"milliseconds": 120}, {"milliseconds": 120}, "same"),
        ("calculate", {"a": 4.5, "op": "divmod", "b": 1}, {"a": 4.5, "op": "divmod", "b": 1},
         "same"),                                                       # "(4.0, 0.5)"
        ("calculate", {"a": 2, "op": "==", "b": 3.5}, {"a": 2, "op": "==", "b": 3.5}, "same"),
        ("is_equal", {"a": 2, "b": 2}, {"a": 2, "b": 2}, "same"),       # true
        ("sentence", {"a": 2, "b": 3.5}, {"a": 2, "b": 3.5}, "same"),   # prose, no outputSchema
    ]
    if annotated:
        cases += [
            ("fetch_text", {**text, "max_length": "120"}, {**text, "max_length": 120}, "same"),
            ("fetch_text", {**text, "max_length": {"value": 120, "unit": "1"}},
             {**text, "max_length": 120}, "same"),
            ("wait", {"milliseconds": "1.5 s"}, {"milliseconds": 1500}, "same"),
            ("wait", {"milliseconds": {"value": 0.25, "unit": "s"}}, {"milliseconds": 250},
             "same"),
            ("wait", {"milliseconds": "0.0005 s"}, None, ("refused", "whole number of ms")),
            ("add", {"a": "2 m", "b": "350 cm"}, {"a": 2, "b": 3.5}, "labelled"),
            ("add", {"a": 2, "b": 3.5}, {"a": 2, "b": 3.5}, "labelled"),
            ("calculate", {"a": 2, "op": "+", "b": 3.5}, {"a": 2, "op": "+", "b": 3.5},
             "labelled"),                                               # "5.5"
            ("reading", {"site": "a"}, {"site": "a"}, "reading"),
        ]
    else:
        cases += [("add", {"a": 2, "b": 3.5}, {"a": 2, "b": 3.5}, "same"),
                  ("reading", {"site": "a"}, {"site": "a"}, "same")]
    return cases


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("annotated", [False, True])
def test_fastmcp_built_server(mode, annotated, tmp_path):
    ann = None
    if annotated:
        ann = tmp_path / "tools.toml"
        ann.write_text(MCPSERVER_ANNOTATIONS)
    d_tools, g_tools, paired = compare(MCPSERVER, mode, mcpserver_cases(annotated), ann)
    reading = [p for p in paired if p[0][3] == "reading"]
    check_pairs([p for p in paired if p[0][3] != "reading"])
    by_args = {(c[0], json.dumps(c[1])): g for c, _, g in paired}
    assert by_args[("wait", json.dumps({"milliseconds": 120}))]["content"][0]["text"] == \
        "waited 120 ms (int)"
    if not annotated:
        same_listing(d_tools, g_tools)
        return
    # the JSON integer reaches the strict upstream
    assert by_args[("wait", json.dumps({"milliseconds": "1.5 s"}))]["content"][0]["text"] == \
        "waited 1500 ms (int)"
    kept_shape(d_tools["fetch_text"], g_tools["fetch_text"], {"max_length": "1"})
    kept_shape(d_tools["wait"], g_tools["wait"], {"milliseconds": "ms"})
    kept_shape(d_tools["add"], g_tools["add"], {"a": "m", "b": "m"})
    for name in ("calculate", "is_equal", "sentence", "reading"):
        kept_shape(d_tools[name], g_tools[name], {})
    assert g_tools["add"]["outputSchema"]["properties"]["result"]["x-unit"] == "m"
    assert g_tools["reading"]["outputSchema"]["properties"]["distance"]["x-unit"] == "m"
    # a dict result: the structured content keeps its shape, the text labels the distance
    (_, _, _, _), direct, guarded = reading[0]
    assert guarded["structuredContent"] == direct["structuredContent"] == \
        {"distance": 12.5, "note": "site a"}
    assert json.loads(guarded["content"][0]["text"]) == \
        {"distance": {"value": 12.5, "unit": "m"}, "note": "site a"}
