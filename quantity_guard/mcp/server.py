"""A zero-dependency MCP server over stdio for your own tools.

::

    from quantity_guard.mcp import serve
    serve(toolbox)            # toolbox.list_tools() -> [tool definitions]
                              # toolbox.call_tool(name, arguments) -> CallToolResult dict

or from a shell: ``python -m quantity_guard.mcp.server my_module:toolbox``.

Both eras are answered, decided per request exactly as a dual-era server should:

* the ``initialize`` era (2024-11-05 to 2025-11-25): ``initialize`` (the client's version is
  echoed when supported, otherwise 2025-11-25 is offered), ``notifications/initialized``,
  ``ping``, ``tools/list`` (optionally paginated with an opaque cursor), ``tools/call``;
* 2026-07-28, recognised by ``_meta["io.modelcontextprotocol/protocolVersion"]`` on a request:
  ``server/discover``, and ``tools/list`` / ``tools/call`` results carrying ``resultType``
  (``ttlMs`` and ``cacheScope`` on lists) and the ``serverInfo`` stamp in ``_meta``; an
  unsupported modern version is answered ``-32022`` with the supported versions.

Unknown tools and malformed parameters are JSON-RPC ``-32602`` errors; a tool that raises gives
an ``isError`` result carrying the exception's message (the toolbox is expected to return tool
errors as results itself). Unknown methods are ``-32601``. Lines that are not JSON get
``-32700``. ``tools/call`` requests run on a small pool of worker threads, so a slow tool does
not hold up others; a request cancelled with ``notifications/cancelled`` is not answered.
Diagnostics go to stderr; the wire is moved off fds 0/1 while serving so that a ``print()``
inside a tool cannot corrupt it.
"""
from __future__ import annotations

import os
import queue
import sys
import threading
import traceback
from typing import Any, Protocol

from . import jsonrpc as rpc
from .fdio import read_chunks
from .jsonrpc import MISSING

__all__ = ["serve", "ServerCore", "RpcError", "Toolbox", "main", "LEGACY_VERSIONS", "MODERN_VERSIONS"]

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
UNSUPPORTED_PROTOCOL_VERSION = -32022

_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


class Toolbox(Protocol):
    def list_tools(self) -> list[dict]: ...

    def call_tool(self, name: str, arguments: dict) -> dict: ...


class _RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = MISSING) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


RpcError = _RpcError
"""Raised by a :class:`ServerCore` subclass's ``_dispatch``: answered as that JSON-RPC error."""


def _default_version() -> str:
    try:
        from .._version import __version__
        return __version__
    except ImportError:  # vendored without _version
        return "0"


class ServerCore:
    """The protocol logic of :func:`serve`, without I/O: ``handle_line(bytes) -> [bytes]``.

    ``handle_line`` is thread-safe (it keeps no per-connection state), so the I/O loop may run
    ``tools/call`` lines on worker threads.
    """

    def __init__(self, handler: Toolbox, *, name: str | None = None, version: str | None = None,
                 instructions: str | None = None, page_size: int | None = None) -> None:
        if not (callable(getattr(handler, "list_tools", None))
                and callable(getattr(handler, "call_tool", None))):
            raise TypeError("the handler needs list_tools() and call_tool(name, arguments) methods")
        if page_size is not None and page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.handler = handler
        handler_name = getattr(handler, "name", None)
        self.name = name or (handler_name if isinstance(handler_name, str) else None) or "quantity-guard"
        self.version = version if version is not None else _default_version()
        self.instructions = instructions
        self.page_size = page_size
        self.server_info = {"name": self.name, "version": self.version}
        self._known: frozenset = frozenset()

    # ---------------------------------------------------------------- lines

    def handle_line(self, line: bytes) -> list[bytes]:
        raw = rpc.strip_terminator(line)
        try:
            obj = rpc.loads(raw)
        except rpc.ParseError as exc:
            if not raw.strip():
                return []
            return [rpc.error_line(None, rpc.PARSE_ERROR, f"Parse error: {exc}")]
        if isinstance(obj, list):
            if not obj:
                return [rpc.error_line(None, rpc.INVALID_REQUEST, "Invalid Request: empty batch")]
            answers = [a for a in (self.handle(el) for el in obj) if a is not None]
            if not answers:
                return []
            return [("[" + ",".join(a.decode("utf-8").rstrip("\n") for a in answers) + "]\n")
                    .encode("utf-8")]
        answer = self.handle(obj)
        return [] if answer is None else [answer]

    def handle(self, obj: Any) -> bytes | None:
        """Answer one parsed message; ``None`` for notifications and responses."""
        msg = rpc.classify(obj)
        if msg.kind == rpc.INVALID:
            ident = msg.id if msg.key is not None else None
            return rpc.error_line(ident, rpc.INVALID_REQUEST, f"Invalid Request: {msg.reason}")
        if msg.kind != rpc.REQUEST:
            return None  # notifications need no answer; we send no requests, so expect no responses
        params = msg.params
        if params is MISSING or params is None:
            params = {}
        try:
            if type(params) is not dict:
                raise _RpcError(rpc.INVALID_PARAMS, "params must be an object")
            modern = self._modern_version(msg.method, params)
            result = self._dispatch(msg.method or "", params, modern)
            if modern:
                result.setdefault("resultType", "complete")
                meta = result.get("_meta")
                if meta is None:
                    result["_meta"] = {_SERVER_INFO_KEY: self.server_info}
                elif type(meta) is dict:
                    meta.setdefault(_SERVER_INFO_KEY, self.server_info)
            return rpc.response_line(msg.id, rpc.dumps(result))
        except _RpcError as exc:
            return rpc.error_line(msg.id, exc.code, exc.message, exc.data)
        except Exception as exc:  # a bug in the server or the handler
            traceback.print_exc(file=sys.stderr)
            return rpc.error_line(msg.id, rpc.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")

    def _modern_version(self, method: str | None, params: dict) -> str | None:
        meta = params.get("_meta")
        version = meta.get(_VERSION_KEY) if type(meta) is dict else None
        if version is None:
            return MODERN_VERSIONS[-1] if method == "server/discover" else None
        if version not in MODERN_VERSIONS:
            raise _RpcError(UNSUPPORTED_PROTOCOL_VERSION, f"Unsupported protocol version: {version!r}",
                            {"supported": list(MODERN_VERSIONS), "requested": version})
        return version

    def _dispatch(self, method: str, params: dict, modern: str | None) -> dict:
        if method == "initialize":
            reset = getattr(self.handler, "reset", None)
            if callable(reset):  # a new client session (a toolbox starts a new ledger)
                reset()
            requested = params.get("protocolVersion")
            version = requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[-1]
            result: dict[str, Any] = {"protocolVersion": version,
                                      "capabilities": {"tools": {"listChanged": False}},
                                      "serverInfo": self.server_info}
            if self.instructions:
                result["instructions"] = self.instructions
            return result
        if method == "server/discover":
            result = {"supportedVersions": list(MODERN_VERSIONS),
                      "capabilities": {"tools": {"listChanged": False}}}
            if self.instructions:
                result["instructions"] = self.instructions
            result.update(ttlMs=0, cacheScope="private")
            return result
        if method == "ping":
            return {}
        if method == "tools/list":
            return self._list_tools(params, modern)
        if method == "tools/call":
            return self._call_tool(params)
        raise _RpcError(rpc.METHOD_NOT_FOUND, f"Method not found: {method}")

    def _list_tools(self, params: dict, modern: str | None) -> dict:
        tools = list(self.handler.list_tools())
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            start = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else -1
            if self.page_size is None or not 0 < start < len(tools):
                raise _RpcError(rpc.INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
        result: dict[str, Any] = {}
        if self.page_size is None:
            result["tools"] = tools
        else:
            end = start + self.page_size
            result["tools"] = tools[start:end]
            if end < len(tools):
                result["nextCursor"] = str(end)
        if modern:
            result.update(ttlMs=0, cacheScope="private")
        return result

    def _call_tool(self, params: dict) -> dict:
        name = params.get("name")
        if not isinstance(name, str):
            raise _RpcError(rpc.INVALID_PARAMS, "tools/call needs a string 'name'")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if type(arguments) is not dict:
            raise _RpcError(rpc.INVALID_PARAMS, "'arguments' must be an object")
        if name not in self._known:
            self._known = frozenset(t.get("name") for t in self.handler.list_tools()
                                    if isinstance(t, dict))
            if name not in self._known:
                raise _RpcError(rpc.INVALID_PARAMS, f"Unknown tool: {name}")
        try:
            result = self.handler.call_tool(name, arguments)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            return {"content": [{"type": "text", "text": f"{name} failed: {type(exc).__name__}: {exc}"}],
                    "isError": True}
        if type(result) is not dict:
            raise _RpcError(rpc.INTERNAL_ERROR,
                            f"tool {name!r} returned {type(result).__name__}, not a CallToolResult object")
        return dict(result)


def serve(handler: Toolbox, *, name: str | None = None, version: str | None = None,
          instructions: str | None = None, page_size: int | None = None,
          stdin_fd: int | None = None, stdout_fd: int | None = None, max_workers: int = 4,
          core: ServerCore | None = None) -> int:
    """Serve ``handler`` over stdio until the client closes stdin; returns 0.

    ``handler`` has ``list_tools() -> list[dict]`` (MCP tool definitions) and
    ``call_tool(name, arguments) -> dict`` (a ``CallToolResult``, tool errors as
    ``isError: true``). ``page_size`` paginates ``tools/list``. ``stdin_fd``/``stdout_fd``
    default to this process's stdin/stdout, which are moved to private descriptors while
    serving. ``core`` serves a :class:`ServerCore` (a subclass's) built by the caller instead.
    """
    if core is None:
        core = ServerCore(handler, name=name, version=version, instructions=instructions,
                          page_size=page_size)
    protected = stdin_fd is None and stdout_fd is None
    saved: tuple[int, int] | None = None
    _flush(sys.stdout)  # what was printed before serving goes where it was meant to
    if protected:
        saved = (os.dup(0), os.dup(1))
        in_fd, out_fd = _protect()
    else:
        in_fd = 0 if stdin_fd is None else stdin_fd
        out_fd = 1 if stdout_fd is None else stdout_fd
    # A tool's print() goes to stderr while serving, unbuffered by the wire: sys.stdout is
    # stderr (a buffered print would otherwise reach fd 1 after it is the wire again)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        _Loop(core, in_fd, out_fd, max_workers).run()
    finally:
        _flush(sys.stdout)
        if sys.stdout is sys.stderr:
            sys.stdout = real_stdout
        if protected and saved is not None:
            os.dup2(saved[0], 0)
            os.dup2(saved[1], 1)
            for fd in (*saved, in_fd, out_fd):
                try:
                    os.close(fd)
                except OSError:
                    pass
    return 0


def _flush(stream: Any) -> None:
    try:
        stream.flush()
    except Exception:  # a closed or replaced stream: nothing to flush
        pass


def _protect() -> tuple[int, int]:
    from .stdio import protect_stdio
    return protect_stdio()


class _Loop:
    def __init__(self, core: ServerCore, in_fd: int, out_fd: int, max_workers: int) -> None:
        self.core = core
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.max_workers = max(1, max_workers)
        self.write_lock = threading.Lock()
        self.cancel_lock = threading.Lock()
        self.in_flight: dict[tuple, int] = {}  # id key -> calls running or queued
        self.cancelled: set[tuple] = set()
        self.jobs: queue.Queue = queue.Queue()
        self.workers: list[threading.Thread] = []
        self.broken = False

    def write(self, lines: list[bytes]) -> None:
        if not lines or self.broken:
            return
        with self.write_lock:
            try:
                data = b"".join(lines)
                view = memoryview(data)
                while view:
                    view = view[os.write(self.out_fd, view):]
            except OSError:
                self.broken = True

    def worker(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            key, line = job
            with self.cancel_lock:
                skip = key in self.cancelled
            out = [] if skip else self.core.handle_line(line)
            with self.cancel_lock:
                n = self.in_flight.get(key, 1) - 1
                if n > 0:
                    self.in_flight[key] = n
                else:
                    self.in_flight.pop(key, None)
                if key in self.cancelled:
                    out = []  # cancelled: the client expects no answer
                    if n <= 0:
                        self.cancelled.discard(key)
            self.write(out)

    def submit(self, key: tuple, line: bytes) -> None:
        with self.cancel_lock:
            self.in_flight[key] = self.in_flight.get(key, 0) + 1
            self.cancelled.discard(key)
        if len(self.workers) < self.max_workers:
            t = threading.Thread(target=self.worker, name="mcp-tool", daemon=True)
            t.start()
            self.workers.append(t)
        self.jobs.put((key, line))

    def route(self, line: bytes) -> None:
        # Peek at tools/call requests (run them on the pool) and cancellations; the core
        # re-parses the line, which keeps it stateless and thread-safe.
        try:
            obj = rpc.loads(line)
        except rpc.ParseError:
            obj = None
        if type(obj) is dict:
            method = obj.get("method")
            key = rpc.id_key(obj.get("id", MISSING))
            if method == "tools/call" and key is not None:
                self.submit(key, line)
                return
            if method == "notifications/cancelled" and "id" not in obj:
                params = obj.get("params")
                ckey = rpc.id_key(params.get("requestId", MISSING)) if type(params) is dict else None
                if ckey is not None:
                    with self.cancel_lock:
                        if ckey in self.in_flight:
                            self.cancelled.add(ckey)
                return
        self.write(self.core.handle_line(line))

    def run(self) -> None:
        buf = rpc.LineBuffer()
        for chunk in read_chunks(self.in_fd, 1 << 16):
            for line in buf.feed(chunk):
                self.route(line)
        tail = buf.flush()
        if tail:
            self.route(tail)
        for _ in self.workers:
            self.jobs.put(None)
        for t in self.workers:
            t.join(5.0)


def _resolve(spec: str) -> Toolbox:
    import importlib

    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"expected module:attribute, got {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not (hasattr(obj, "list_tools") and hasattr(obj, "call_tool")) and callable(obj):
        obj = obj()
    if not (callable(getattr(obj, "list_tools", None)) and callable(getattr(obj, "call_tool", None))):
        raise TypeError(f"{spec} has no list_tools() and call_tool(name, arguments) methods")
    return obj


_USAGE = """\
usage: python -m quantity_guard.mcp.server [--name NAME] [--page-size N] MODULE:ATTRIBUTE

Serve a toolbox over stdio as an MCP server (both the initialize era and 2026-07-28).
MODULE:ATTRIBUTE names an object with list_tools() and call_tool(name, arguments), or a
callable returning one. Exit status: 0 after the client closes stdin, 2 on a usage or
import error.
"""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    name: str | None = None
    page_size: int | None = None
    spec: str | None = None
    try:
        while args:
            a = args.pop(0)
            if a in ("-h", "--help"):
                sys.stdout.write(_USAGE)
                return 0
            if a == "--name" or a.startswith("--name="):
                name = a.split("=", 1)[1] if "=" in a else args.pop(0)
            elif a == "--page-size" or a.startswith("--page-size="):
                page_size = int(a.split("=", 1)[1] if "=" in a else args.pop(0))
            elif a.startswith("-") or spec is not None:
                raise ValueError(f"unexpected argument {a!r}")
            else:
                spec = a
        if spec is None:
            raise ValueError("MODULE:ATTRIBUTE is required")
    except (ValueError, IndexError) as exc:
        sys.stderr.write(f"quantity_guard.mcp.server: error: {exc or 'missing value'}\n{_USAGE}")
        return 2
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        handler = _resolve(spec)
    except Exception as exc:
        sys.stderr.write(f"quantity_guard.mcp.server: error: cannot load {spec}: {exc}\n")
        return 2
    return serve(handler, name=name, page_size=page_size)


if __name__ == "__main__":
    sys.exit(main())
