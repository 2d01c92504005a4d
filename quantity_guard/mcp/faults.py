"""The guard's answers to messages it does not forward: lines over the size limit, a failure
inside the guard, tool calls in shapes it does not check, member names written twice, ids
already in flight, requests after the upstream closed. Each returns the outputs to send and
keeps the guard's counts (``stats``) and diagnostics."""
from __future__ import annotations

from typing import Any

from . import jsonrpc as rpc
from .jsonrpc import MISSING
from .state import C2S, S2C, GuardView

__all__ = ["closed_error", "internal_error", "oversized", "wrong_shape",
           "duplicate_member_refused", "duplicate_id"]


def closed_error(guard: GuardView, ident: Any) -> list[tuple[str, bytes]]:
    guard.stats["answered"] += 1
    return [(S2C, rpc.error_line(ident, rpc.INTERNAL_ERROR,
                                 f"{guard.closed_reason}; the request was not forwarded"))]



def internal_error(guard: GuardView, direction: str, line: bytes, exc: Exception) -> list[tuple[str, bytes]]:
    guard.note(f"internal error while handling a {direction} line: {exc!r}")
    raw = rpc.strip_terminator(line)
    try:
        obj = rpc.loads(raw)
    except rpc.ParseError:
        try:
            obj = rpc.decode_shallow(raw)[1]
        except rpc.ParseError:
            return []
    if direction == S2C:
        # Better an unrewritten answer than a client waiting forever.
        if isinstance(obj, (dict, list)):
            return [(S2C, raw + b"\n")]
        return []
    msg = rpc.classify(obj)
    if msg.kind == rpc.REQUEST:
        guard.table.pop(msg.key)  # it may have been registered before the failure
        return [(S2C, rpc.error_line(msg.id, rpc.INTERNAL_ERROR,
                                     f"quantity-guard-mcp internal error: {exc!r}"))]
    return []



def oversized(guard: GuardView, direction: str, line: rpc.Oversized) -> list[tuple[str, bytes]]:
    """A line over the maximum message size (see ``jsonrpc.LineBuffer``): only its first
    and last bytes were kept. The request it was, or the request it answered, gets an error
    naming the limit; the line itself goes nowhere."""
    ident, method, answer = rpc.peek_oversized(line)
    sender = "client" if direction == C2S else "upstream MCP server"
    size = (f"a message of {line.size:,} bytes, over the proxy's maximum message size of "
            f"{line.limit:,} bytes (quantity-guard-mcp --max-message-size)")
    guard.note(f"the {sender} sent {size}; it was dropped"
              + (f" (method {method!r})" if method else "")
              + ("" if ident is MISSING else f" (id {rpc.dumps(ident)})"))
    guard.stats["dropped"] += 1
    if direction == C2S:
        if ident is MISSING and method is not None:
            return []  # a notification: nobody to answer
        if answer and method is None:  # the client's answer to a request of the upstream
            if rpc.id_key(ident) is None:
                return []
            return [(C2S, rpc.error_line(
                ident, rpc.INTERNAL_ERROR,
                f"the client answered this request with {size}; the answer was dropped"))]
        guard.stats["answered"] += 1
        return [(S2C, rpc.error_line(
            ident if rpc.id_key(ident) is not None else None, rpc.INVALID_REQUEST,
            f"Invalid Request: the proxy received {size}; it was not forwarded. Send a "
            f"smaller message, or start the proxy with a larger --max-message-size"))]
    if method is not None:  # a request from the upstream: answer it upstream
        if ident is MISSING:
            return []
        return [(C2S, rpc.error_line(
            ident if rpc.id_key(ident) is not None else None, rpc.INVALID_REQUEST,
            f"Invalid Request: the proxy received {size}; it was not passed to the client"))]
    entry = guard.table.pop(rpc.id_key(ident))
    if entry is None:
        return []
    guard.stats["answered"] += 1
    return [(S2C, rpc.error_line(
        entry.id, rpc.INTERNAL_ERROR,
        f"the upstream MCP server answered this {entry.method} request with {size}; the "
        f"answer was dropped. Ask for less, or start the proxy with a larger "
        f"--max-message-size"))]



def wrong_shape(guard: GuardView, msg: rpc.Message, wrong: tuple[int, str]) -> list[tuple[str, bytes]]:
    """A message a lenient upstream could run as a tool call, in a shape the guard does not
    check (``call_shape``): a request is answered with the error, a notification dropped;
    neither is forwarded."""
    code, what = wrong
    guard.note(f"refused a client {msg.kind}: {what}")
    if msg.kind == rpc.REQUEST:
        guard.stats["answered"] += 1
        return [(S2C, rpc.error_line(msg.id, code, what))]
    guard.stats["dropped"] += 1
    return []



def duplicate_member_refused(guard: GuardView, msg: rpc.Message, twice: str) -> list[tuple[str, bytes]]:
    """A client message with a member name twice on its routing path: refused whole (a
    request with its id; the client's answer to the upstream is answered upstream with an
    error; a notification is dropped), never forwarded."""
    what = (f"the member {twice!r} occurs twice; JSON readers differ on which one counts, "
            "so the message was not forwarded. Send each member once")
    guard.note(f"refused a client {msg.kind} with a duplicate member: {what}")
    if msg.kind == rpc.REQUEST:
        guard.stats["answered"] += 1
        return [(S2C, rpc.error_line(msg.id, rpc.INVALID_REQUEST, f"Invalid Request: {what}"))]
    guard.stats["dropped"] += 1
    if msg.kind in (rpc.RESPONSE, rpc.ERROR) and msg.key is not None:
        return [(C2S, rpc.error_line(msg.id, rpc.INTERNAL_ERROR,
                                     f"the client's answer to this request was dropped: {what}"))]
    return []



def duplicate_id(guard: GuardView, ident: Any) -> list[tuple[str, bytes]]:
    guard.stats["answered"] += 1
    shown = rpc.id_text(ident)
    guard.note(f"refused a request reusing the in-flight id {shown}")
    return [(S2C, rpc.error_line(
        ident, rpc.INVALID_REQUEST,
        f"Invalid Request: the id {shown} is already used by a request that has "
        "not been answered yet; this request was not forwarded. Send it again with an id "
        "that is not in flight"))]
