"""``quantity-guard-mcp``: wrap an MCP server you did not write.

See :data:`USAGE` (``quantity-guard-mcp --help``) for the options and exit codes.
"""
from __future__ import annotations

import importlib
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any

__all__ = ["main", "parse_args", "fetch_tools", "Options", "UsageError", "USAGE",
           "EXIT_OK", "EXIT_UPSTREAM", "EXIT_USAGE", "EXIT_CONFIG", "EXIT_START", "EXIT_CHECK"]

EXIT_OK = 0
EXIT_UPSTREAM = 1
EXIT_USAGE = 2
EXIT_CONFIG = 3
EXIT_START = 4
EXIT_CHECK = 5

PROG = "quantity-guard-mcp"

USAGE = f"""\
usage: {PROG} [options] [--] COMMAND [ARG...]

Run the MCP server COMMAND as a child process and relay JSON-RPC between it and this process's
stdin/stdout. Tools named in the annotation file are re-advertised with units in their schema,
their arguments are converted into the units the server expects (or refused with a repair
text), and their bare numeric results come back labelled. Everything else passes untouched.
The '--' before COMMAND is optional.

options:
  --annotations FILE     TOML or JSON annotation file naming the guarded tools; without it
                         the proxy guards nothing and relays every message unchanged
  --enforcement MODE     strict (default): refuse violations; warn: record them, forward the
                         call unchanged
  --log FILE             append a JSON line for every guarded call and violation
  --manifest FILE        write the session ledger to FILE on exit
  --check                validate the annotation file against a live tools/list of COMMAND,
                         print the report and exit (needs --annotations)
  --version              print the version and exit
  -h, --help             print this help and exit

Diagnostics go to stderr only; stdout carries nothing but the JSON-RPC stream.

exit status:
  0    the client closed stdin and the server was stopped; or --check found no problem;
       or --help / --version
  1    the server exited or closed its stdout while the client was connected (each
       pending request was answered with a JSON-RPC error first); or --check could not
       list the server's tools
  2    usage error
  3    the annotation file (or the policy module) could not be loaded
  4    COMMAND could not be started
  5    --check found problems in the annotation file
  128+N  stopped by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143); also 129 when the
       client process disappears
"""


class UsageError(Exception):
    pass


class Options:
    """Parsed command line."""

    def __init__(self) -> None:
        self.command: list[str] = []
        self.annotations: str | None = None
        self.enforcement = "strict"
        self.log: str | None = None
        self.manifest: str | None = None
        self.check = False
        self.version = False
        self.help = False


_VALUED = {"--annotations": "annotations", "--enforcement": "enforcement", "--log": "log",
           "--manifest": "manifest"}
_FLAGS = {"--check": "check", "--version": "version", "--help": "help", "-h": "help"}


def parse_args(argv: list[str]) -> Options:
    """Options up to the first non-option word (or ``--``); the rest is the upstream command."""
    opts = Options()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        name, eq, value = arg.partition("=")
        if name in _VALUED:
            if not eq:
                i += 1
                if i >= len(argv):
                    raise UsageError(f"{name} needs a value")
                value = argv[i]
            if not value:
                raise UsageError(f"{name} needs a value")
            setattr(opts, _VALUED[name], value)
        elif arg in _FLAGS:
            setattr(opts, _FLAGS[arg], True)
        else:
            raise UsageError(f"unknown option {arg!r}")
        i += 1
    opts.command = list(argv[i:])
    if opts.help or opts.version:
        return opts
    if opts.enforcement not in ("strict", "warn"):
        raise UsageError(f"--enforcement must be strict or warn, not {opts.enforcement!r}")
    if not opts.command:
        raise UsageError("no server command given")
    if not opts.annotations:
        for flag in ("log", "manifest", "check"):
            if getattr(opts, flag):
                raise UsageError(f"--{flag} needs --annotations")
        if opts.enforcement != "strict":
            raise UsageError("--enforcement needs --annotations")
    return opts


def _err(text: str) -> None:
    try:
        sys.stderr.write(f"{PROG}: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _version() -> str:
    from .._version import __version__
    return __version__


def _build_policy(opts: Options) -> Any:
    try:
        # Written separately; imported only when needed.
        policy_module = importlib.import_module("quantity_guard.mcp.policy")
    except ModuleNotFoundError as exc:
        if exc.name == "quantity_guard.mcp.policy":
            raise _ConfigError("--annotations needs the module quantity_guard.mcp.policy, which "
                               "this installation does not have") from None
        raise _ConfigError(f"cannot import quantity_guard.mcp.policy: {exc}") from None
    except Exception as exc:
        raise _ConfigError(f"cannot import quantity_guard.mcp.policy: {exc!r}") from None
    try:
        return policy_module.build_policy(opts.annotations, enforcement=opts.enforcement,
                                          log_path=opts.log, manifest_path=opts.manifest)
    except Exception as exc:
        raise _ConfigError(f"cannot load {opts.annotations}: {exc}") from None


class _ConfigError(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        opts = parse_args(args)
    except UsageError as exc:
        _err(f"error: {exc}\ntry '{PROG} --help'")
        return EXIT_USAGE
    if opts.help:
        sys.stdout.write(USAGE)
        sys.stdout.flush()
        return EXIT_OK
    if opts.version:
        sys.stdout.write(f"{PROG} {_version()}\n")
        sys.stdout.flush()
        return EXIT_OK

    # Before any policy code runs: a print() anywhere must reach neither the JSON-RPC stream
    # nor the --check report. Both go to private descriptors; fd 1 becomes stderr.
    from .stdio import protect_stdio
    wire = protect_stdio()
    policy = None
    try:
        if opts.annotations:
            try:
                policy = _build_policy(opts)
            except _ConfigError as exc:
                _err(str(exc))
                return EXIT_CONFIG
        if opts.check:
            return _check(opts, policy, wire[1])
        from .guard import Guard
        from .stdio import run_proxy
        return run_proxy(opts.command, Guard(policy), client_in=wire[0], client_out=wire[1])
    finally:
        close = getattr(policy, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:
                _err(f"policy.close() failed: {exc!r}")
        from .stdio import restore_stdio
        restore_stdio(wire)


# ------------------------------------------------------------------------------- --check


def _check(opts: Options, policy: Any, out_fd: int) -> int:
    try:
        tools, era = fetch_tools(opts.command)
    except FileNotFoundError as exc:
        _err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except PermissionError as exc:
        _err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except (OSError, _UpstreamError, TimeoutError) as exc:
        _err(f"could not list the tools of {' '.join(opts.command)}: {exc}")
        return EXIT_UPSTREAM
    _err(f"the server listed {len(tools)} tool(s) ({era} era)")
    checker = getattr(policy, "check_catalogue", None)
    if not callable(checker):
        _err("this policy has no check_catalogue(); nothing to check")
        return EXIT_CONFIG
    report = checker(tools)
    text = str(report)
    data = (text if text.endswith("\n") else text + "\n").encode("utf-8")
    view = memoryview(data)
    while view:
        view = view[os.write(out_fd, view):]
    ok = getattr(report, "ok", None)
    if ok is None and isinstance(report, dict):
        ok = report.get("ok")
    if ok is None:
        problems = getattr(report, "problems", None)
        ok = not problems if problems is not None else True
    return EXIT_OK if ok else EXIT_CHECK


class _UpstreamError(Exception):
    pass


class _Client:
    """A minimal JSON-RPC client over a child's stdio, for ``--check``. Ids live in a private
    ``"guard:<n>"`` namespace."""

    def __init__(self, command: list[str]) -> None:
        from . import jsonrpc as rpc
        self.rpc = rpc
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     bufsize=0, start_new_session=True)
        self.inbox: queue.Queue = queue.Queue()
        self.n = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        buf = self.rpc.LineBuffer()
        fd = self.proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            for line in buf.feed(chunk):
                try:
                    self.inbox.put(self.rpc.loads(line))
                except self.rpc.ParseError:
                    _err(f"ignored upstream output that is not JSON: {line[:120]!r}")
        self.inbox.put(None)

    def send(self, obj: dict) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(self.rpc.encode(obj))
        except OSError as exc:
            raise _UpstreamError(f"the server stopped reading ({exc})") from None

    def request(self, method: str, params: dict | None, timeout: float) -> Any:
        self.n += 1
        ident = f"guard:{self.n}"
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method} within {timeout:g} s")
            try:
                obj = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if obj is None:
                self.inbox.put(None)
                raise _UpstreamError(f"the server exited (status {self.proc.wait()})")
            if type(obj) is not dict:
                continue
            if "method" in obj and "id" in obj:  # a server->client request: decline politely
                answer: dict[str, Any] = {"jsonrpc": "2.0", "id": obj["id"]}
                if obj["method"] == "ping":
                    answer["result"] = {}
                else:
                    answer["error"] = {"code": -32601, "message": "Method not found"}
                self.send(answer)
                continue
            if obj.get("id") != ident or type(obj.get("id")) is not str:
                continue
            if "error" in obj:
                err = obj["error"] if type(obj["error"]) is dict else {}
                raise _UpstreamError(f"{method} failed: {err.get('message')} ({err.get('code')})")
            return obj.get("result")

    def close(self) -> None:
        from .stdio import stop_process_group
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            pass
        stop_process_group(self.proc)
        self.proc.wait()


def fetch_tools(command: list[str], *, timeout: float = 30.0,
                probe_timeout: float = 5.0) -> tuple[list[dict], str]:
    """Start ``command``, list all its tools (every page) and stop it.

    Probes with ``server/discover`` first and falls back to the ``initialize`` handshake on any
    error or silence, as the 2026-07-28 backward-compatibility rules describe. Returns
    ``(tools, era)`` with ``era`` ``"modern"`` or ``"legacy"``.
    """
    version = _version()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": PROG, "version": version}}
    client = _Client(list(command))
    try:
        modern = False
        try:
            found = client.request("server/discover", {"_meta": meta}, probe_timeout)
            versions = found.get("supportedVersions") if type(found) is dict else None
            modern = isinstance(versions, list) and "2026-07-28" in versions
        except (_UpstreamError, TimeoutError):
            if client.proc.poll() is not None:
                raise
        if not modern:
            client.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                          "clientInfo": {"name": PROG, "version": version}}, timeout)
            client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools: list[dict] = []
        cursor: Any = None
        seen: set = set()
        for _ in range(10_000):
            params: dict[str, Any] = {"_meta": meta} if modern else {}
            if cursor is not None:
                params["cursor"] = cursor
            page = client.request("tools/list", params or None, timeout)
            if type(page) is not dict or type(page.get("tools")) is not list:
                raise _UpstreamError("tools/list returned no 'tools' array")
            tools.extend(t for t in page["tools"] if type(t) is dict)
            cursor = page.get("nextCursor")
            if cursor is None or cursor in seen:
                break
            seen.add(cursor)
        return tools, "modern" if modern else "legacy"
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
