"""JSON-RPC batches (2025-03-26) through the guard.

A client batch is forwarded untouched unless something in it would need the guard's
attention alone (a guarded ``tools/call``, an id in flight, a member written twice, a tool call
in a shape the guard does not check): then every request in it is answered with an error
and nothing goes upstream. An upstream batch is read element by element; only the answers
the policy rewrites are spliced in place.
"""
from __future__ import annotations

from typing import Any

from . import jsonrpc as rpc
from .shape import call_shape, duplicate_member, preview
from .state import C2S, S2C, GuardView

__all__ = ["client_batch", "upstream_batch"]


def client_batch(guard: GuardView, raw: bytes, batch: list) -> list[tuple[str, bytes]]:
    if not batch:
        guard.stats["answered"] += 1
        return [(S2C, rpc.error_line(None, rpc.INVALID_REQUEST, "Invalid Request: empty batch"))]
    msgs = [rpc.classify(el) for el in batch]
    if all(m.kind == rpc.INVALID for m in msgs):
        # nothing in it is a message: answered here (JSON-RPC 2.0 "Batch"), never forwarded
        guard.stats["answered"] += 1
        errors = [rpc.error_line(m.id if m.key is not None else None, rpc.INVALID_REQUEST,
                                 f"Invalid Request: {m.reason}")[:-1].decode("utf-8") for m in msgs]
        guard.note(f"answered a batch of {len(batch)} values none of which is a JSON-RPC message")
        return [(S2C, ("[" + ",".join(errors) + "]\n").encode("utf-8"))]
    blocked: str | None = None
    if guard.closed:
        blocked = f"{guard.closed_reason}; the batch was not forwarded"
    else:
        seen: set = set()
        for m in msgs:
            if m.kind == rpc.REQUEST and m.key is not None:
                if m.key in guard.table or m.key in seen:
                    blocked = (f"Invalid Request: the id {rpc.id_text(m.id)} in this batch is "
                               "already used by a request that has not been answered yet; "
                               "nothing in the batch was forwarded. Send it again with ids "
                               "that are not in flight")
                    break
                seen.add(m.key)
        for m in msgs if blocked is None else ():
            wrong = call_shape(m)
            if wrong is not None:
                blocked = (f"{wrong[1].split(';')[0]}; nothing in the batch was forwarded. Send "
                           "each tools/call as a request of its own")
                break
            if m.kind == rpc.REQUEST and m.method == "tools/call" and type(m.params) is dict:
                name = m.params.get("name")
                if isinstance(name, str) and (guard.guarded(name) or guard.listings.near_guarded(name)):
                    blocked = (f"Invalid Request: this batch calls the unit-guarded tool {name!r}; "
                               "send guarded tools/call requests one per line, not in a batch. "
                               "Nothing in the batch was forwarded")
                    break
        if blocked is None:
            text = raw.decode("utf-8", "replace")
            try:
                spans = rpc.elements(text)
            except rpc.ParseError:
                spans = []
            for (start, end), element in zip(spans, batch):
                twice = duplicate_member(text[start:end], element)
                if twice is not None:
                    blocked = (f"Invalid Request: a message in this batch has the member "
                               f"{twice!r} twice; JSON readers differ on which one counts, so "
                               "nothing in the batch was forwarded. Send each member once")
                    break
    if blocked is not None:
        errors = []
        for m in msgs:
            if m.kind == rpc.REQUEST or m.kind == rpc.INVALID:
                ident = m.id if m.kind == rpc.REQUEST else None
                code = rpc.INTERNAL_ERROR if guard.closed else rpc.INVALID_REQUEST
                errors.append(rpc.error_line(ident, code, blocked)[:-1].decode("utf-8"))
        guard.note(f"refused a batch of {len(batch)} messages: {blocked}")
        if not errors:
            return []
        guard.stats["answered"] += 1
        return [(S2C, ("[" + ",".join(errors) + "]\n").encode("utf-8"))]
    for m in msgs:
        if m.kind == rpc.REQUEST:
            modern = guard.observe_era(m)
            extra: dict[str, Any] = {}
            if m.method == "tools/call" and type(m.params) is dict:
                name = m.params.get("name")
                extra["tool"] = name if isinstance(name, str) else None
            elif m.method == "tools/list":
                extra["cursor"] = type(m.params) is dict and m.params.get("cursor") is not None
            extra["task"] = guard.tasks.asked(m.method, m.params)  # hook: tasks.py
            guard.table.add(m, modern, **extra)
        elif m.kind == rpc.NOTIFICATION and m.method == "notifications/cancelled":
            guard.forget_cancelled(m.params)
    guard.stats["forwarded"] += 1
    return [(C2S, raw + b"\n")]



def upstream_batch(guard: GuardView, raw: bytes, text: str, batch: list) -> list[tuple[str, bytes]]:
    msgs = [rpc.classify(el) for el in batch]
    if not batch or all(m.kind == rpc.INVALID for m in msgs):
        guard.stats["dropped"] += 1
        guard.note(f"dropped upstream output that is not JSON-RPC: {preview(raw)}")
        return []
    spans: list[tuple[int, int]] | None = None
    edits: list[tuple[int, int, str]] = []
    for i, m in enumerate(msgs):
        if m.kind == rpc.NOTIFICATION and m.method == "notifications/tools/list_changed":
            guard.listings.stale = True
        if m.kind != rpc.RESPONSE and m.kind != rpc.ERROR:
            continue
        entry = guard.table.pop(m.key, answered=m.kind == rpc.RESPONSE)
        if entry is None or m.kind != rpc.RESPONSE:
            continue
        if spans is None:
            spans = rpc.elements(text)
        start, end = spans[i]
        new = guard.rewrite_response(entry, m, None, (text, start, end))
        if new is not None:
            edits.append((start, end, new))
    if edits:
        guard.stats["rewritten"] += 1
        return [(S2C, rpc.splice(text, edits).encode("utf-8") + b"\n")]
    guard.stats["forwarded"] += 1
    return [(S2C, raw + b"\n")]
