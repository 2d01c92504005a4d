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
from typing import Any, Callable

__all__ = ["main", "parse_args", "fetch_tools", "Options", "UsageError", "USAGE",
           "EXIT_OK", "EXIT_UPSTREAM", "EXIT_USAGE", "EXIT_CONFIG", "EXIT_START", "EXIT_CHECK",
           "EXIT_WRITE"]

EXIT_OK = 0
EXIT_UPSTREAM = 1
EXIT_USAGE = 2
EXIT_CONFIG = 3
EXIT_START = 4
EXIT_CHECK = 5
EXIT_WRITE = 6

PROG = "quantity-guard-mcp"

USAGE = f"""\
usage: {PROG} [options] [--] COMMAND [ARG...]
       {PROG} annotate [--tools-json FILE | --upstream URL | -- COMMAND ...]
       {PROG} interceptor --annotations FILE [--listen [HOST:]PORT]

Run the MCP server COMMAND as a child process and relay JSON-RPC between it and this process's
stdin/stdout. Tools named in the annotation file are re-advertised with units in their schema,
their arguments are converted into the units the server expects (or refused with a repair
text), and their bare numeric results come back labelled. Everything else passes untouched.
The '--' before COMMAND is optional. 'annotate' prints a draft annotation file from the
server's own words (see '{PROG} annotate --help').

options:
  --annotations FILE     TOML or JSON annotation file naming the guarded tools; without it
                         the proxy guards nothing and relays every message unchanged
  --enforcement MODE     strict (default): refuse violations; warn: record them, forward the
                         call unchanged
  --log FILE             append a JSON line for every guarded call and violation: the
                         guarded parameters, their conversions and violations (other
                         arguments by name only); created readable by its owner only (0600)
  --log-max-bytes N      rotate the --log file before it would pass N bytes (or KiB, MiB,
                         GiB): FILE becomes FILE.1, FILE.1 FILE.2 and so on; default 64MiB,
                         0 never rotates. A record is never split between files
  --log-backups N        rotated --log files kept (FILE.1 the newest ... FILE.N); the oldest
                         beyond N is deleted; default 4, 0 keeps none
  --manifest FILE        write the session ledger to FILE on exit, atomically (a temporary
                         file, fsync, rename) and readable by its owner only (0600)
  --max-message-size N   the largest JSON-RPC message (line) read from the client or the
                         server, in bytes or with a suffix (KiB, MiB, GiB); default 1GiB. A
                         longer line is drained to its newline and dropped, never buffered;
                         the request it was (or answered) gets an error naming the limit.
                         Also the largest HTTP request body --listen accepts (default 16MiB;
                         413 beyond) and upstream HTTP message relayed (default 64MiB)
  --drain-timeout SECONDS
                         when the client's input ends (e.g. requests piped from a file), how
                         long the upstream may take to answer the requests still pending
                         before its stdin is closed and it is stopped; default 30. Requests
                         still unanswered then get a JSON-RPC error saying so
  --strict-annotations   before starting, list the server's tools and refuse to start (exit 3)
                         if the annotation file names a tool or a parameter the server does
                         not list; without it such a declaration is warned about on stderr
                         (and in --log) when the proxy first relays tools/list
  --log-level LEVEL      DEBUG, INFO (default), WARNING or ERROR: what goes to stderr, through
                         the quantity_guard logger (refusals are WARNING, the proxy's life
                         cycle INFO, conversions DEBUG); in warn mode a summary of what would
                         have been refused is logged when a session ends
  --check                validate the annotation file against a live tools/list of COMMAND
                         or --upstream URL, print the report and exit (needs --annotations)
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
  3    the annotation file (or the policy module) could not be loaded; or, with
       --strict-annotations, it names a tool or parameter the server does not list
  4    COMMAND could not be started
  5    --check found problems in the annotation file
  6    the --manifest file could not be written (the previous one, if any, is left whole),
       or a --log record could not be written (reported once; guarded calls went on); this
       status is given even when the proxy was stopped by a signal
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
        self.max_message_size: int | None = None
        self.log_max_bytes: Any = None  # --log-max-bytes (None: the default, 64 MiB)
        self.log_backups: Any = None  # --log-backups (None: the default, 4)
        self.drain_timeout: Any = 30.0
        self.log_level = "INFO"
        self.check = False
        self.strict_annotations = False
        self.version = False
        self.help = False


_VALUED = {"--annotations": "annotations", "--enforcement": "enforcement", "--log": "log",
           "--manifest": "manifest", "--max-message-size": "max_message_size",
           "--drain-timeout": "drain_timeout", "--log-level": "log_level",
           "--log-max-bytes": "log_max_bytes", "--log-backups": "log_backups"}
_SIZE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MIB": 1 << 20,
               "G": 1 << 30, "GIB": 1 << 30}


def parse_size(text: str, flag: str = "--max-message-size", *, zero: bool = False) -> int:
    """``"65536"``, ``"64MiB"``, ``"1 GiB"``, ``"512K"``: a positive number of bytes (or 0,
    when ``zero`` allows it)."""
    t = text.strip()
    digits = len(t) - len(t.lstrip("0123456789"))
    number, unit = t[:digits], t[digits:].strip().upper()
    if zero and number and unit in _SIZE_UNITS and int(number) == 0:
        return 0
    if not number or unit not in _SIZE_UNITS or int(number) * _SIZE_UNITS[unit] <= 0:
        raise UsageError(f"{flag} must be a positive number of bytes{' (or 0)' if zero else ''}, "
                         f"optionally with KiB, MiB or GiB (e.g. 64MiB), not {text!r}")
    return int(number) * _SIZE_UNITS[unit]


def parse_seconds(flag: str, text: str, *, positive: bool = False) -> float:
    """``"30"``, ``"0.5"``: a finite number of seconds (``>= 0``, or ``> 0`` if ``positive``)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value - value == 0) or value < 0 or (positive and value == 0):
        raise UsageError(f"{flag} must be a number of seconds{' above 0' if positive else ''} "
                         f"(e.g. 30 or 0.5), not {text!r}")
    return value


def apply_limits(opts: "Options") -> None:
    """Make ``--max-message-size`` the limit of every line buffer this process reads with."""
    if opts.max_message_size is not None:
        from .jsonrpc import LineBuffer
        LineBuffer.max_message = opts.max_message_size
_FLAGS = {"--check": "check", "--strict-annotations": "strict_annotations",
          "--version": "version", "--help": "help", "-h": "help"}


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
    from .logs import LEVELS
    if opts.log_level.upper() not in LEVELS:
        raise UsageError(f"--log-level must be one of {', '.join(LEVELS)}, not {opts.log_level!r}")
    if isinstance(opts.max_message_size, str):
        opts.max_message_size = parse_size(opts.max_message_size)
    if isinstance(opts.drain_timeout, str):
        opts.drain_timeout = parse_seconds("--drain-timeout", opts.drain_timeout)
    if isinstance(opts.log_max_bytes, str):
        opts.log_max_bytes = parse_size(opts.log_max_bytes, "--log-max-bytes", zero=True)
    if isinstance(opts.log_backups, str):
        if not opts.log_backups.isdigit() or int(opts.log_backups) > 1000:
            raise UsageError(f"--log-backups must be a whole number from 0 to 1000, not "
                             f"{opts.log_backups!r}")
        opts.log_backups = int(opts.log_backups)
    for flag in ("log_max_bytes", "log_backups"):
        if getattr(opts, flag) is not None and not opts.log:
            raise UsageError(f"--{flag.replace('_', '-')} bounds the --log file, which is not given")
    if not opts.command:
        raise UsageError("no server command given")
    if not opts.annotations:
        for flag in ("log", "manifest", "check", "strict_annotations"):
            if getattr(opts, flag):
                raise UsageError(f"--{flag.replace('_', '-')} needs --annotations")
        if opts.enforcement != "strict":
            raise UsageError("--enforcement needs --annotations")
    return opts


def _err(text: str) -> None:
    from .logs import log
    if log(text):  # once --log-level configured logging: a record of quantity_guard.mcp
        return
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
        limits = {k: v for k, v in (("log_max_bytes", opts.log_max_bytes),
                                     ("log_backups", opts.log_backups)) if v is not None}
        return policy_module.build_policy(opts.annotations, enforcement=opts.enforcement,
                                          log_path=opts.log, manifest_path=opts.manifest, **limits)
    except Exception as exc:
        raise _ConfigError(f"cannot load {opts.annotations}: {exc}") from None


class _ConfigError(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["annotate"]:  # the subcommand: draft an annotation file (mcp/annotate.py)
        from .annotate import main as annotate
        return annotate(args[1:], fetch=fetch_tools)
    if args[:1] == ["interceptor"]:  # the subcommand: the guard as an MCP interceptor server
        from .interceptor import main as interceptor
        return interceptor(args[1:])
    try:
        http, args = split_http_options(args)  # Streamable HTTP options: see the block below
        if http.active:
            return _http_main(http, args)
        opts = parse_args(args)
        apply_limits(opts)
    except UsageError as exc:
        _err(f"error: {exc}\ntry '{PROG} --help'")
        return EXIT_USAGE
    if opts.help:
        sys.stdout.write(USAGE + "\n" + HTTP_USAGE)
        sys.stdout.flush()
        return EXIT_OK
    if opts.version:
        sys.stdout.write(f"{PROG} {_version()}\n")
        sys.stdout.flush()
        return EXIT_OK
    from .logs import configure
    configure(opts.log_level)

    def relay(policy: Any, wire: tuple[int, int]) -> int:
        if opts.check:
            return _check(opts, policy, wire[1])
        if opts.strict_annotations:
            refused = _strict_preflight(opts, policy)
            if refused is not None:
                return refused
        from .guard import Guard
        from .stdio import run_proxy
        return run_proxy(opts.command, Guard(policy), client_in=wire[0], client_out=wire[1],
                         drain_timeout=opts.drain_timeout, upstream_timeout=http.upstream_timeout)

    return _with_policy(opts, relay)


def _with_policy(opts: Options, run: Any) -> int:
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
                policy = _build_policy(opts)
            except _ConfigError as exc:
                _err(str(exc))
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


def answer_first_request(wire: tuple[int, int], text: str, path: "str | None",
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
        _err(f"the manifest {manifest!r} could not be written ({exc.strerror or exc}); the "
             "previous one, if any, is left as it was")
        return False
    except Exception as exc:
        _err(f"policy.close() failed: {exc!r}")
        return False
    return True


# ------------------------------------------------------------------------------- --check


def _check(opts: Options, policy: Any, out_fd: int, fetch: Any = None, what: str = "") -> int:
    try:
        tools, era = fetch() if fetch is not None else fetch_tools(opts.command)
    except FileNotFoundError as exc:
        _err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except PermissionError as exc:
        _err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except (OSError, _UpstreamError, TimeoutError) as exc:
        _err(f"could not list the tools of {what or ' '.join(opts.command)}: {exc}")
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


def _strict_preflight(opts: Options, policy: Any, fetch: Any = None, what: str = "") -> int | None:
    """``--strict-annotations``: list the upstream's tools before starting; None to go on, or
    the exit status when a declaration names a tool or parameter the server does not list (each
    problem is printed, with the names it may have meant) or the tools cannot be listed."""
    try:
        tools, _era = fetch() if fetch is not None else fetch_tools(opts.command)
    except (FileNotFoundError, PermissionError) as exc:
        _err(f"cannot start {opts.command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except (OSError, _UpstreamError, TimeoutError) as exc:
        _err(f"--strict-annotations: could not list the tools of "
             f"{what or ' '.join(opts.command)} to check the annotations: {exc}")
        return EXIT_UPSTREAM
    checker = getattr(policy, "check_catalogue", None)
    if not callable(checker):
        return None
    problems = list(getattr(checker(tools), "problems", None) or ())
    if not problems:
        return None
    _err(f"{opts.annotations}: {len(problems)} declaration(s) match nothing the server lists, "
         f"so they would guard nothing; not starting (--strict-annotations):\n  "
         + "\n  ".join(problems))
    return EXIT_CONFIG


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
    version = _version()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": CHECK_CAPABILITIES,
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
            client.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": CHECK_CAPABILITIES,
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


# ------------------------------------------------------------------------------- Streamable HTTP
# Issue 16: --upstream URL (a remote server instead of COMMAND) and --listen [HOST:]PORT (serve
# HTTP clients). Kept apart from the stdio options above; the stdio proxy never imports any of it.

HTTP_USAGE = """\
Streamable HTTP (remote servers and HTTP clients):
  --upstream URL         guard the remote MCP server at URL (http:// or https://) instead of
                         starting COMMAND; the client still talks to this process over stdio
                         unless --listen is given
  --listen [HOST:]PORT   serve Streamable HTTP to clients at http://HOST:PORT/mcp, in front of
                         COMMAND or --upstream URL; HOST defaults to 127.0.0.1 (loopback only)
  --allow-remote         (with --listen) allow HOST to be an address other than loopback
                         (e.g. 0.0.0.0). Without it such a --listen is refused: whoever
                         reaches the port could use the upstream and any --header-env
                         credential. Needs --client-token-env, and --allow-host for a wildcard
                         address; see docs/security.md
  --client-token-env ENV (with --listen) clients must send "Authorization: Bearer TOKEN"
                         where TOKEN is the value of environment variable ENV (at least 16
                         characters; never on the command line); others get 401, before
                         their body is read. Repeat it to accept several tokens
  --allow-host NAME      (with --listen) also accept requests whose Host header is NAME (the
                         name clients use to reach the proxy); loopback names are always
                         accepted, any other Host gets 421 (DNS rebinding)
  --allow-origin ORIGIN  (with --listen) also accept browser requests from ORIGIN; by default
                         only loopback origins are accepted, others get 403
  --forward-header NAME  (with --listen and --upstream) pass the client's NAME header upstream;
                         nothing is forwarded unless named (e.g. Authorization)
  --header-env NAME=ENV  send header NAME with the value of environment variable ENV upstream
                         (never give secrets on the command line; values are never logged)
  --upstream-timeout SECONDS
                         the longest wait for the upstream's answer to each request: for an
                         --upstream URL, for the head of its response; for a COMMAND, for the
                         answer or a progress notification of the request. Default 300, 0 for
                         no limit. When it runs out the request gets a JSON-RPC error (and a
                         COMMAND a notifications/cancelled); an SSE client of --listen gets
                         keep-alive comments meanwhile
  --upstream-idle-timeout SECONDS
                         (with --upstream) the longest silence within a response stream of
                         the upstream (between two events); default 300, 0 for no limit. The
                         GET stream and subscriptions/listen streams are exempt
  --cafile FILE          trust only the certificate authorities in FILE for https upstreams
                         (verification is always on)
  --max-sessions N       (with --listen) sessions kept at once, each with its own ledger
                         and upstream (default 64). A 2025 session takes its place only once
                         the upstream accepted its initialize; when all are in use a new one
                         gets 503 and no live session is ended. With --manifest FILE, session
                         N writes FILE with -N before its extension, if it made a guarded call
  --max-manifests N      (with --listen and --manifest FILE) keep the newest N per-session
                         manifests (FILE-N...), deleting older ones as sessions end; never
                         one of a session still open; default 1000, 0 keeps them all
  --session-idle SECONDS (with --listen) end a session with nothing in flight after SECONDS
                         without a request (default 3600), freeing its place
  --max-sessions-per-client N
                         (with --listen) sessions one client may hold: a client is its
                         credential (Authorization, or a --forward-header) or else its
                         address; default a quarter of --max-sessions, or all of it for
                         loopback clients without a credential (they cannot be told apart)
  --max-connections N    (with --listen) connections open at once (default 512); one more
                         gets 503 and is closed. Keep it well below the process's open-file
                         limit: each session also holds its upstream's pipes or socket
  --max-connections-per-peer N
                         (with --listen) connections open at once from one client address
                         (default: all of --max-connections on a loopback bind, an eighth of
                         it otherwise)
  --session-header NAME  (with --listen) group 2026-07-28 calls, which have no session, by the
                         value of the client's header NAME (e.g. X-Conversation-Id): one ledger
                         per value, at most --max-sessions values. Calls without it keep the
                         conversation's ledger by the trace id in params._meta (traceparent),
                         else by the client's credential and clientInfo (docs/gateway.md)
  --store URL            (with --listen) share the conversations' ledgers and the 2025
                         sessions with every proxy started with the same --store and
                         annotations: redis://HOST:PORT/DB, rediss://HOST:PORT/DB or
                         unix:///PATH?db=N (needs the store extra, the redis package); any
                         replica behind a load balancer serves any request (docs/gateway.md)
  --store-ttl SECONDS    (with --store) forget a conversation or session after SECONDS
                         without a read or a write (default 3600)
  --store-prefix TEXT    (with --store) the prefix of every key written (default qg:)
  --store-key-env ENV    (with --store) the key the replicas share, from environment variable
                         ENV (default QUANTITY_GUARD_STORE_KEY; at least 32 characters, e.g.
                         64 random hex digits): every record is authenticated with it
                         and key names are derived from it, so a record written without it is
                         never trusted and two gateways with different keys share nothing
  --store-password-env ENV
                         (with --store) the store's password, from environment variable ENV
                         (not in the URL, which the process list shows)
  --store-unavailable refuse|proceed
                         (with --store) when the store cannot be reached: refuse guarded calls
                         with the code store_unavailable (refuse, the default), or forward them
                         checked against this replica's memory only, with a warning (proceed)
"""


class HTTPOptions:
    """The Streamable HTTP options (all optional)."""

    def __init__(self) -> None:
        self.upstream: str | None = None
        self.listen: str | None = None
        self.forward_headers: list[str] = []
        self.header_env: list[tuple[str, str]] = []
        self.allow_origins: list[str] = []
        self.cafile: str | None = None
        self.max_sessions = 64
        self.max_manifests = 1000  # --max-manifests: per-session manifests kept (0: all)
        self.session_header: str | None = None
        self.upstream_timeout: float | None = 300.0
        self.upstream_idle_timeout: float | None = 300.0
        self.explicit: set[str] = set()  # the options given (for the ones that need another)
        self.max_connections = 512
        self.max_connections_per_peer: int | None = None
        self.max_sessions_per_client: int | None = None
        self.session_idle = 3600.0
        self.allow_remote = False
        self.client_token_env: str | None = None
        self.client_token_envs: list[str] = []
        self.store_key_env = "QUANTITY_GUARD_STORE_KEY"
        self.store_password_env: str | None = None
        self.allow_hosts: list[str] = []
        self.store: str | None = None
        self.store_ttl = 3600.0
        self.store_prefix = "qg:"
        self.store_unavailable = "refuse"

    @property
    def active(self) -> bool:
        return (self.upstream is not None or self.listen is not None or self.session_header is not None
                or bool(self.explicit - {"--upstream-timeout"}))


_HTTP_VALUED = {"--upstream", "--listen", "--forward-header", "--header-env", "--cafile",
                "--allow-origin", "--max-sessions", "--session-header", "--upstream-timeout",
                "--upstream-idle-timeout", "--max-connections", "--max-connections-per-peer",
                "--max-sessions-per-client", "--session-idle", "--client-token-env", "--allow-host",
                "--store", "--store-ttl", "--store-prefix", "--store-unavailable", "--max-manifests",
                "--store-key-env", "--store-password-env"}


class ManifestRetention:
    """``--listen --manifest FILE --max-manifests N``: the per-session manifests
    (``FILE-<n><ext>`` beside FILE) are kept to the newest ``N`` (by modification time; ``0``
    keeps them all). Pruned each time a session has closed (and written its manifest); a file
    of a session still open is never deleted, nor counted."""

    def __init__(self, manifest: str, keep: int) -> None:
        root, self.ext = os.path.splitext(os.path.abspath(manifest))
        self.folder, self.stem = os.path.dirname(root), os.path.basename(root) + "-"
        self.keep = keep
        self.live: set[str] = set()

    def opened(self, path: str) -> Callable[[], None]:
        """A session that will write ``path`` began; returns what to call once it closed."""
        path = os.path.abspath(path)
        self.live.add(path)

        def closed() -> None:
            self.live.discard(path)
            self.prune()
        return closed

    def prune(self) -> None:
        if not self.keep:
            return
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        found = []
        for name in names:
            if not (name.startswith(self.stem) and name.endswith(self.ext)):
                continue
            number = name[len(self.stem):len(name) - len(self.ext)]
            path = os.path.join(self.folder, name)
            if not number.isdigit() or path in self.live:
                continue
            try:
                found.append((os.stat(path).st_mtime_ns, int(number), path))
            except OSError:
                continue
        found.sort(reverse=True)
        for _, _, path in found[self.keep:]:
            try:
                os.unlink(path)
            except OSError as exc:
                _err(f"could not delete the old manifest {path!r} beyond --max-manifests "
                     f"{self.keep} ({exc.strerror or exc})")


def _gateway(http: HTTPOptions, opts: Any, key: bytes | None = None,
             password: str | None = None) -> dict:
    """The store, the conversations' ledgers on it and the gateway's identity key, for
    ``--store`` (a store that cannot be opened or reached is a configuration error)."""
    from ..store import open_store
    from .gateway import Conversations
    from .identity import IdentityKey
    from .gateway import MAX_CALLS, MAX_ENTRIES
    assert http.store is not None
    try:
        store = open_store(http.store, ttl=http.store_ttl, prefix=http.store_prefix,
                           max_calls=MAX_CALLS, on_unavailable=http.store_unavailable, warn=_err,
                           key=key, password=password)
    except (ValueError, ImportError) as exc:
        raise _ConfigError(f"error: --store: {exc}") from None
    try:
        store.client.ping()
        store.check_epoch()
    except store._errors as exc:
        raise _ConfigError(f"error: --store: the shared store could not be reached "
                           f"({type(exc).__name__}: {exc}); start the proxy once the store is "
                           "reachable") from None
    identity = IdentityKey.derived(key) if key is not None else IdentityKey()
    conversations = Conversations(store=store, max_kept=4 * http.max_sessions,
                                  max_entries=MAX_ENTRIES, max_calls=MAX_CALLS)
    return {"store": store, "conversations": conversations, "identity": identity}


def split_http_options(argv: list[str]) -> tuple[HTTPOptions, list[str]]:
    """Take the Streamable HTTP options out of ``argv`` (only before COMMAND / ``--``)."""
    http = HTTPOptions()
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--" or not arg.startswith("-") or arg == "-":
            rest.extend(argv[i:])
            break
        if arg == "--allow-remote":
            http.allow_remote = True
            http.explicit.add(arg)
            i += 1
            continue
        name, eq, value = arg.partition("=")
        if name not in _HTTP_VALUED:
            rest.append(arg)
            from_valued = name in _VALUED and not eq
            if from_valued and i + 1 < len(argv):
                rest.append(argv[i + 1])
                i += 1
            i += 1
            continue
        if not eq:
            i += 1
            if i >= len(argv):
                raise UsageError(f"{name} needs a value")
            value = argv[i]
        if not value:
            raise UsageError(f"{name} needs a value")
        if name == "--upstream":
            http.upstream = value
        elif name == "--listen":
            http.listen = value
        elif name == "--forward-header":
            http.forward_headers.append(value)
        elif name == "--allow-origin":
            http.allow_origins.append(value)
        elif name == "--cafile":
            http.cafile = value
        elif name == "--session-header":
            http.session_header = value
        elif name == "--store":
            http.store = value
            http.explicit.add(name)
        elif name == "--store-ttl":
            http.store_ttl = parse_seconds(name, value, positive=True)
            http.explicit.add(name)
        elif name == "--store-prefix":
            http.store_prefix = value
            http.explicit.add(name)
        elif name == "--store-unavailable":
            if value not in ("refuse", "proceed"):
                raise UsageError(f"--store-unavailable must be refuse or proceed, not {value!r}")
            http.store_unavailable = value
            http.explicit.add(name)
        elif name == "--client-token-env":
            http.client_token_env = value
            http.client_token_envs.append(value)
            http.explicit.add(name)
        elif name in ("--store-key-env", "--store-password-env"):
            setattr(http, name[2:].replace("-", "_"), value)
            http.explicit.add(name)
        elif name == "--allow-host":
            http.allow_hosts.append(value)
            http.explicit.add(name)
        elif name == "--session-idle":
            http.session_idle = parse_seconds(name, value, positive=True)
            http.explicit.add(name)
        elif name in ("--upstream-timeout", "--upstream-idle-timeout"):
            seconds = parse_seconds(name, value)
            setattr(http, name[2:].replace("-", "_"), seconds or None)
            http.explicit.add(name)
        elif name in ("--max-connections", "--max-connections-per-peer", "--max-sessions-per-client"):
            if not value.isdigit() or int(value) < 1:
                raise UsageError(f"{name} must be a positive integer, not {value!r}")
            setattr(http, name[2:].replace("-", "_"), int(value))
            http.explicit.add(name)
        elif name == "--max-manifests":
            if not value.isdigit():
                raise UsageError(f"--max-manifests must be a whole number (0 keeps every manifest), "
                                 f"not {value!r}")
            http.max_manifests = int(value)
            http.explicit.add(name)
        elif name == "--max-sessions":
            if not value.isdigit() or int(value) < 1:
                raise UsageError(f"--max-sessions must be a positive integer, not {value!r}")
            http.max_sessions = int(value)
        else:  # --header-env NAME=ENVVAR
            hname, eq2, envvar = value.partition("=")
            if not eq2 or not hname or not envvar:
                raise UsageError(f"--header-env needs NAME=ENVVAR (the header and the environment "
                                 f"variable holding its value), not {value!r}")
            http.header_env.append((hname, envvar))
        i += 1
    return http, rest


def _http_main(http: HTTPOptions, args: list[str]) -> int:
    try:
        has_command = _has_command(args)
        opts = parse_args(args if has_command or not http.upstream else args + ["--", "(remote)"])
        apply_limits(opts)
        if not has_command and http.upstream:
            opts.command = []
        if opts.help or opts.version:
            return main(args)
        if http.upstream and opts.command:
            raise UsageError("give either --upstream URL or a server COMMAND, not both")
        if not http.upstream and not opts.command:
            raise UsageError("no server: give a COMMAND or --upstream URL")
        if opts.check and http.listen:
            raise UsageError("--check lists the upstream's tools and exits; it does not go with --listen")
        if http.forward_headers and not (http.listen and http.upstream):
            raise UsageError("--forward-header passes an HTTP client's header to an HTTP upstream: it "
                             "needs both --listen and --upstream")
        from .http.wire import HOP_BY_HOP
        for name in http.forward_headers:
            if name.lower() in HOP_BY_HOP or name.lower().startswith("mcp-"):
                raise UsageError(f"--forward-header {name}: hop-by-hop, framing and MCP headers are "
                                 "the proxy's own and are never forwarded")
        if http.session_header is not None:
            if not http.listen:
                raise UsageError("--session-header groups the calls of HTTP clients: it needs --listen")
            from .http.wire import HOP_BY_HOP, HeaderError, check_header
            try:
                check_header(http.session_header, "x")
            except HeaderError as exc:
                raise UsageError(f"--session-header {http.session_header!r}: {exc}") from None
            if http.session_header.lower() in HOP_BY_HOP or http.session_header.lower().startswith("mcp-"):
                raise UsageError(f"--session-header {http.session_header}: hop-by-hop, framing and MCP "
                                 "headers cannot group sessions; name a header the client sends for "
                                 "its conversation (e.g. X-Conversation-Id)")
        if http.allow_origins and not http.listen:
            raise UsageError("--allow-origin needs --listen")
        if "--max-manifests" in http.explicit and not (http.listen and opts.manifest):
            raise UsageError("--max-manifests bounds the per-session manifests of --listen "
                             "--manifest FILE; it needs both")
        for flag in ("--max-connections", "--max-connections-per-peer", "--max-sessions-per-client",
                     "--session-idle", "--allow-remote", "--client-token-env", "--allow-host"):
            if flag in http.explicit and not http.listen:
                raise UsageError(f"{flag} applies to the HTTP clients of --listen; it needs --listen")
        for flag in ("--store", "--store-ttl", "--store-prefix", "--store-unavailable",
                     "--store-key-env", "--store-password-env"):
            if flag in http.explicit and flag != "--store" and http.store is None:
                raise UsageError(f"{flag} configures --store, which is not given")
            if flag in http.explicit and not http.listen:
                raise UsageError(f"{flag} shares the ledgers of --listen's replicas; it needs --listen")
        if http.cafile and not http.upstream:
            raise UsageError("--cafile needs --upstream")
        for flag in ("--upstream-idle-timeout",):
            if flag in http.explicit and not http.upstream:
                raise UsageError(f"{flag} bounds the waits for an --upstream URL; none is given")
        if http.header_env and not http.upstream:
            raise UsageError("--header-env sets headers sent to an --upstream URL; none is given")
        static = _header_env_values(http)
        if http.upstream:
            from .http.client import parse_url
            try:
                parse_url(http.upstream)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            if http.cafile and not os.path.isfile(http.cafile):
                raise UsageError(f"--cafile {http.cafile!r}: no such file")
        listen = None
        client_token = None
        client_tokens: list = []
        store_secrets: tuple = (None, None)
        if http.listen:
            from .http.listen import is_loopback_host, parse_listen
            try:
                listen = parse_listen(http.listen)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            client_token = _client_token(http)
            client_tokens = [_client_token(http, env) for env in http.client_token_envs[:-1]]
            if http.store is not None:
                store_secrets = _store_secrets(http)
            if not is_loopback_host(listen[0]):
                if not http.allow_remote:
                    raise UsageError(
                        f"--listen {http.listen} binds {listen[0]}, which is not loopback: whoever "
                        "reaches that port could call the upstream's tools, with any --header-env "
                        "credential. To expose the proxy on purpose add --allow-remote, "
                        "--client-token-env ENV (clients must send that bearer token) and "
                        "--allow-host NAME (the name clients use); see docs/security.md")
                if client_token is None:
                    raise UsageError("--allow-remote needs --client-token-env ENV: an exposed proxy "
                                     "authenticates its clients")
                if listen[0] in ("0.0.0.0", "::", "") and not http.allow_hosts:
                    raise UsageError(f"--listen {http.listen} binds every address: name the host "
                                     "clients use with --allow-host NAME (other Host headers are "
                                     "refused, against DNS rebinding)")
    except UsageError as exc:
        _err(f"error: {exc}\ntry '{PROG} --help'")
        return EXIT_USAGE
    from .logs import configure
    configure(opts.log_level)

    if listen is not None:
        from .http.listen import run_listener

        import copy
        import itertools
        numbers = itertools.count(1)

        retention = ManifestRetention(opts.manifest, http.max_manifests) if opts.manifest else None

        def new_policy() -> Any:
            """A policy (and so a ledger) per session; with --manifest, session N writes
            FILE with ``-N`` before its extension (``manifest-3.json``), and once it has, the
            oldest of those beyond --max-manifests are deleted (never a live session's)."""
            if not opts.annotations:
                return None
            session_opts = copy.copy(opts)
            if opts.manifest:
                root, ext = os.path.splitext(opts.manifest)
                session_opts.manifest = f"{root}-{next(numbers)}{ext}"
            policy = _build_policy(session_opts)
            if retention is not None and session_opts.manifest:
                policy.on_close = retention.opened(session_opts.manifest)
            if hasattr(policy, "write_empty_manifest"):
                policy.write_empty_manifest = False  # one file per session that made a guarded call
            # what the upstream's listing declared is shared by every session: a listing
            # seen on one connection applies to calls made on another
            if first and callable(getattr(policy, "share_listing", None)):
                policy.share_listing(first[0])
            else:
                first.append(policy)
            return policy

        first: list = []

        try:
            if opts.annotations:  # fail early on a bad annotation file
                check_opts = copy.copy(opts)
                check_opts.manifest = None
                check_opts.log = None
                checked = _build_policy(check_opts)
                if opts.strict_annotations:
                    refused = _strict_preflight(
                        opts, checked, _http_fetcher(http, static) if http.upstream else None,
                        http.upstream or "")
                    if refused is not None:
                        return refused
        except _ConfigError as exc:
            _err(str(exc))
            return EXIT_CONFIG
        gateway: dict[str, Any] = {}
        if http.store is not None:
            try:
                gateway = _gateway(http, opts, *store_secrets)
            except _ConfigError as exc:
                _err(str(exc))
                return EXIT_CONFIG
        return run_listener(listen, new_policy, command=opts.command or None, upstream=http.upstream,
                            headers=static, forward_headers=http.forward_headers,
                            allow_origins=http.allow_origins, cafile=http.cafile,
                            max_sessions=http.max_sessions, session_header=http.session_header,
                            upstream_timeout=http.upstream_timeout,
                            upstream_idle_timeout=http.upstream_idle_timeout,
                            max_connections=http.max_connections,
                            max_connections_per_peer=http.max_connections_per_peer,
                            max_sessions_per_client=http.max_sessions_per_client,
                            session_idle=http.session_idle, client_token=client_token,
                            client_tokens=[t for t in client_tokens if t is not None],
                            allow_hosts=http.allow_hosts, max_message=opts.max_message_size, log=_err,
                            **gateway)

    def bridge(policy: Any, wire: tuple[int, int]) -> int:
        from .guard import Guard
        from .http.upstream import run_stdio_to_http
        assert http.upstream is not None
        if opts.check:
            from .http.client import UpstreamError
            from .http.upstream import fetch_tools_http
            url = http.upstream

            def fetch() -> tuple[list[dict], str]:
                try:
                    return fetch_tools_http(url, headers=static, cafile=http.cafile,
                                            client_info={"name": PROG, "version": _version()}), "legacy"
                except UpstreamError as exc:
                    raise _UpstreamError(str(exc)) from None

            return _check(opts, policy, wire[1], fetch, url)
        if opts.strict_annotations:
            refused = _strict_preflight(opts, policy, _http_fetcher(http, static), http.upstream)
            if refused is not None:
                return refused
        return run_stdio_to_http(http.upstream, Guard(policy), client_in=wire[0], client_out=wire[1],
                                 headers=static, cafile=http.cafile, drain_timeout=opts.drain_timeout,
                                 upstream_timeout=http.upstream_timeout,
                                 upstream_idle_timeout=http.upstream_idle_timeout,
                                 max_message=opts.max_message_size)

    return _with_policy(opts, bridge)


def _http_fetcher(http: HTTPOptions, static: list[tuple[str, str]]) -> Any:
    """A ``fetch()`` of the --upstream URL's tools, as ``_check`` and ``_strict_preflight``
    take it."""
    def fetch() -> tuple[list[dict], str]:
        from .http.client import UpstreamError
        from .http.upstream import fetch_tools_http
        assert http.upstream is not None
        try:
            return fetch_tools_http(http.upstream, headers=static, cafile=http.cafile,
                                    client_info={"name": PROG, "version": _version()}), "legacy"
        except UpstreamError as exc:
            raise _UpstreamError(str(exc)) from None
    return fetch


def _has_command(args: list[str]) -> bool:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return i + 1 < len(args)
        if not arg.startswith("-") or arg == "-":
            return True
        if arg in _VALUED:
            i += 1
        i += 1
    return False


def _store_secrets(http: HTTPOptions) -> tuple[bytes, str | None]:
    """The --store-key-env key and the --store-password-env password (checked; never printed)."""
    key = os.environ.get(http.store_key_env, "").strip()
    if len(key) < 32 or any(c.isspace() or not c.isprintable() for c in key):
        raise UsageError(f"--store needs the key the replicas share in environment variable "
                         f"{http.store_key_env} (--store-key-env ENV): at least 32 visible "
                         f"characters, e.g. export {http.store_key_env}=\"$(openssl rand -hex 32)\""
                         + ("; the value is not shown" if key else ""))
    password = None
    if http.store_password_env is not None:
        password = os.environ.get(http.store_password_env)
        if not password:
            raise UsageError(f"--store-password-env {http.store_password_env}: the environment "
                             "variable is not set")
    return key.encode("utf-8"), password


def _client_token(http: HTTPOptions, env: str | None = None) -> str | None:
    """The --client-token-env token (checked; never printed): the last one given, or ``env``'s."""
    env = env or http.client_token_env
    if env is None:
        return None
    if any(name.lower() == "authorization" for name in http.forward_headers):
        raise UsageError("--client-token-env takes the client's Authorization header for the proxy "
                         "itself, so it cannot also be forwarded: give the upstream its credential "
                         "with --header-env Authorization=ENV")
    value = os.environ.get(env)
    if value is None:
        raise UsageError(f"--client-token-env {env}: the environment variable is not set")
    if len(value.strip()) < 16 or any(c.isspace() or not c.isprintable() for c in value.strip()):
        raise UsageError(f"--client-token-env {env}: the token must be at least 16 "
                         "visible characters without spaces (e.g. from `openssl rand -hex 32`); "
                         "the value is not shown")
    return value.strip()


def _header_env_values(http: HTTPOptions) -> list[tuple[str, str]]:
    """The --header-env headers with their values (checked; the values are never printed)."""
    from .http.wire import HeaderError, check_header
    out = []
    for name, envvar in http.header_env:
        if name.lower() in ("host", "content-length", "transfer-encoding", "connection"):
            raise UsageError(f"--header-env cannot set {name}: the proxy writes it")
        value = os.environ.get(envvar)
        if value is None:
            raise UsageError(f"--header-env {name}={envvar}: the environment variable {envvar} is not set")
        try:
            check_header(name, value)
        except HeaderError:
            raise UsageError(f"--header-env {name}={envvar}: the header name or the variable's value "
                             "cannot be sent (a line break or control character, or not Latin-1); "
                             "the value is not shown") from None
        out.append((name, value))
    return out


if __name__ == "__main__":
    sys.exit(main())
