"""What ``quantity-guard-mcp`` runs once its command line is parsed: the policy built from
the annotation file, stdio protected around it, ``--check`` and ``--strict-annotations``
against a live ``tools/list``, and the messages on stderr."""
from __future__ import annotations

import importlib
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any

from .cli_options import (
    EXIT_CHECK,
    EXIT_CONFIG,
    EXIT_OK,
    EXIT_START,
    EXIT_UPSTREAM,
    EXIT_WRITE,
    PROG,
    Options,
)

__all__ = [
    "CHECK_CAPABILITIES",
    "CONFIG_ERROR",
    "ConfigError",
    "UpstreamError",
    "answer_first_request",
    "apply_limits",
    "build_policy",
    "close_policy",
    "err",
    "fetch_tools",
    "run_check",
    "strict_preflight",
    "version",
    "with_policy",
]

def apply_limits(opts: Options) -> None:
    """Make ``--max-message-size`` the limit of every line buffer this process reads with."""
    if opts.max_message_size is not None:
        from .jsonrpc import LineBuffer
        LineBuffer.max_message = opts.max_message_size


def err(text: str) -> None:
    from .logs import log
    if log(text):  # once --log-level configured logging: a record of quantity_guard.mcp
        return
    try:
        sys.stderr.write(f"{PROG}: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def version() -> str:
    from .._version import __version__
    return __version__


def build_policy(opts: Options) -> Any:
    try:
        # Written separately; imported only when needed.
        policy_module = importlib.import_module("quantity_guard.mcp.policy")
    except ModuleNotFoundError as exc:
        if exc.name == "quantity_guard.mcp.policy":
            raise ConfigError("--annotations needs the module quantity_guard.mcp.policy, which "
                               "this installation does not have") from None
        raise ConfigError(f"cannot import quantity_guard.mcp.policy: {exc}") from None
    except Exception as exc:
        raise ConfigError(f"cannot import quantity_guard.mcp.policy: {exc!r}") from None
    try:
        limits = {k: v for k, v in (("log_max_bytes", opts.log_max_bytes),
                                     ("log_backups", opts.log_backups)) if v is not None}
        return policy_module.build_policy(opts.annotations, enforcement=opts.enforcement,
                                          log_path=opts.log, manifest_path=opts.manifest, **limits)
    except Exception as exc:
        raise ConfigError(f"cannot load {opts.annotations}: {exc}") from None


class ConfigError(Exception):
    pass



def with_policy(opts: Options, run: Any) -> int:
    """``run(policy, wire)`` with stdio protected and the annotations' policy built (a bad file
    exits with EXIT_CONFIG); the policy is closed and stdio restored whatever happens. When
    closing the policy fails (the manifest could not be written) the exit status is EXIT_WRITE.

    Stdio is protected before any policy code runs: a print() anywhere must reach neither the
    JSON-RPC stream nor the --check report. Both go to private descriptors; fd 1 becomes stderr."""
    from .stdio import protect_stdio, restore_stdio
    wire = protect_stdio()
    policy = None
    code = EXIT_CONFIG
    try:
        if opts.annotations:
            try:
                policy = build_policy(opts)
            except ConfigError as exc:
                err(str(exc))
                if not opts.check:
                    answer_first_request(wire, str(exc), opts.annotations)
                return EXIT_CONFIG
        code = int(run(policy, wire))
    finally:
        from .logs import log_file_failed
        if not close_policy(policy, opts.manifest) or log_file_failed():
            code = EXIT_WRITE
        restore_stdio(wire)
    return code


CONFIG_ERROR = -32002
"""The JSON-RPC error code of the answer a proxy whose annotation file did not load gives."""
FIRST_REQUEST_WAIT = 10.0
"""How long a proxy whose annotation file did not load waits for the client's first request."""


def answer_first_request(wire: tuple[int, int], text: str, path: str | None,
                         wait: float = FIRST_REQUEST_WAIT) -> bool:
    """A stdio client sees a proxy that cannot start only as a closed connection; so, before
    exiting, answer the client's first request (notifications are skipped) with a JSON-RPC
    error naming the annotation file, the line and the fix (``error.data.problems``). True
    when a request was answered; waits at most ``wait`` seconds for it."""
    import json
    import select

    from .jsonrpc import LineBuffer
    problems = [line.strip() for line in text.splitlines()[1:] if line.strip()] or [text]
    buf = LineBuffer()
    deadline = time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            ready, _, _ = select.select([wire[0]], [], [], left)
            if not ready:
                return False
            chunk = os.read(wire[0], 1 << 16)
        except (OSError, ValueError):
            return False
        if not chunk:
            return False
        for line in buf.feed(chunk):
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if not isinstance(msg, dict) or "method" not in msg or msg.get("id") is None:
                continue
            first = problems[0]
            answer = {"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": CONFIG_ERROR,
                "message": f"{PROG} cannot start: the annotation file {path} does not load "
                           f"({len(problems)} problem(s); the first: {first}). Fix the file "
                           f"(check it with: {PROG} --check --annotations {path} -- COMMAND) "
                           f"and restart the server",
                "data": {"file": path, "problems": problems}}}
            data = (json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8")
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(wire[1], view):]
            except OSError:
                return False
            return True


def close_policy(policy: Any, manifest: str | None) -> bool:
    """``policy.close()`` (which writes the manifest); False, with the reason on stderr, if it
    failed."""
    close = getattr(policy, "close", None)
    if not callable(close):
        return True
    try:
        close()
    except OSError as exc:
        err(f"the manifest {manifest!r} could not be written ({exc.strerror or exc}); the "
             "previous one, if any, is left as it was")
        return False
    except Exception as exc:
        err(f"policy.close() failed: {exc!r}")
        return False
    return True


# ------------------------------------------------------------------------------- --check


def run_check(opts: Options, policy: Any, out_fd: int, fetch: Any = None, what: str = "") -> int:
    try:
        tools, era = fetch() if fetch is not None else fetch_tools(opts.command)
    except FileNotFoundError as exc:
        err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except PermissionError as exc:
        err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except (OSError, UpstreamError, TimeoutError) as exc:
        err(f"could not list the tools of {what or ' '.join(opts.command)}: {exc}")
        return EXIT_UPSTREAM
    err(f"the server listed {len(tools)} tool(s) ({era} era)")
    checker = getattr(policy, "check_catalogue", None)
    if not callable(checker):
        err("this policy has no check_catalogue(); nothing to check")
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


def strict_preflight(opts: Options, policy: Any, fetch: Any = None, what: str = "") -> int | None:
    """``--strict-annotations``: list the upstream's tools before starting; None to go on, or
    the exit status when a declaration names a tool or parameter the server does not list (each
    problem is printed, with the names it may have meant) or the tools cannot be listed."""
    try:
        tools, _era = fetch() if fetch is not None else fetch_tools(opts.command)
    except (FileNotFoundError, PermissionError) as exc:
        err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except (OSError, UpstreamError, TimeoutError) as exc:
        err(f"--strict-annotations: could not list the tools of "
             f"{what or ' '.join(opts.command)} to check the annotations: {exc}")
        return EXIT_UPSTREAM
    checker = getattr(policy, "check_catalogue", None)
    if not callable(checker):
        return None
    problems = list(getattr(checker(tools), "problems", None) or ())
    if not problems:
        return None
    err(f"{opts.annotations}: {len(problems)} declaration(s) match nothing the server lists, "
         f"so they would guard nothing; not starting (--strict-annotations):\n  "
         + "\n  ".join(problems))
    return EXIT_CONFIG


class UpstreamError(Exception):
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
                    err(f"ignored upstream output that is not JSON: {line[:120]!r}")
        self.inbox.put(None)

    def send(self, obj: dict) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(self.rpc.encode(obj))
        except OSError as exc:
            raise UpstreamError(f"the server stopped reading ({exc})") from None

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
                raise UpstreamError(f"the server exited (status {self.proc.wait()})")
            if type(obj) is not dict:
                continue
            if "method" in obj and "id" in obj:  # a server->client request: decline politely
                answer: dict[str, Any] = {"jsonrpc": "2.0", "id": obj["id"]}
                if obj["method"] == "ping":
                    answer["result"] = {}
                elif obj["method"] == "roots/list":
                    answer["result"] = {"roots": []}
                elif obj["method"] == "elicitation/create":
                    answer["result"] = {"action": "decline"}
                elif obj["method"] == "sampling/createMessage":
                    answer["error"] = {"code": -1, "message": "quantity-guard-mcp --check does not sample"}
                else:
                    answer["error"] = {"code": -32601, "message": "Method not found"}
                self.send(answer)
                continue
            if obj.get("id") != ident or type(obj.get("id")) is not str:
                continue
            if "error" in obj:
                err = obj["error"] if type(obj["error"]) is dict else {}
                raise UpstreamError(f"{method} failed: {err.get('message')} ({err.get('code')})")
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


# What --check declares it can do: some servers list tools only to clients that declare sampling,
# elicitation or roots (the reference server-everything lists trigger-sampling-request,
# trigger-elicitation-request, trigger-url-elicitation and get-roots-list only then), and the
# check must see the tools a full client sees. Requests that follow are answered honestly: no
# roots, elicitation declined, sampling refused.
CHECK_CAPABILITIES: dict[str, Any] = {"roots": {}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}


def fetch_tools(command: list[str], *, timeout: float = 30.0,
                probe_timeout: float = 5.0) -> tuple[list[dict], str]:
    """Start ``command``, list all its tools (every page) and stop it.

    Probes with ``server/discover`` first and falls back to the ``initialize`` handshake on any
    error or silence, as the 2026-07-28 backward-compatibility rules describe. Returns
    ``(tools, era)`` with ``era`` ``"modern"`` or ``"legacy"``.
    """
    ours = version()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": CHECK_CAPABILITIES,
            "io.modelcontextprotocol/clientInfo": {"name": PROG, "version": ours}}
    client = _Client(list(command))
    try:
        modern = False
        try:
            found = client.request("server/discover", {"_meta": meta}, probe_timeout)
            versions = found.get("supportedVersions") if type(found) is dict else None
            modern = isinstance(versions, list) and "2026-07-28" in versions
        except (UpstreamError, TimeoutError):
            if client.proc.poll() is not None:
                raise
        if not modern:
            client.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": CHECK_CAPABILITIES,
                                          "clientInfo": {"name": PROG, "version": ours}}, timeout)
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
                raise UpstreamError("tools/list returned no 'tools' array")
            tools.extend(t for t in page["tools"] if type(t) is dict)
            cursor = page.get("nextCursor")
            if cursor is None or cursor in seen:
                break
            seen.add(cursor)
        return tools, "modern" if modern else "legacy"
    finally:
        client.close()


