"""What the guard remembers between messages, as tables: the era and the pending requests.

The era (see :mod:`quantity_guard.mcp.guard`) moves by the rows of :data:`ERA_STEPS`: the
current era and what a client request is (:func:`request_kind`) give the next era and whether
the policy starts a new client session. :class:`PendingTable` holds the requests forwarded
upstream and not yet answered, by id key (``jsonrpc.id_key``) and by progress token.
"""
from __future__ import annotations

import time
from typing import Any, Iterator, Protocol

from . import jsonrpc as rpc

__all__ = ["ANSWERS_READ", "C2S", "S2C", "LOG", "MODERN", "LEGACY", "ERA_STEPS", "request_kind", "is_modern", "Pending",
           "PendingTable", "GuardView"]

C2S = "c2s"
"""Travelling client -> upstream server (an input from the client, or an output to write upstream)."""
S2C = "s2c"
"""Travelling upstream server -> client."""
LOG = "log"
"""Output only: a diagnostic (UTF-8 text, one line) for stderr."""

MODERN = "modern"
LEGACY = "legacy"

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"

# What a client request is, for the era: an initialize request, a request of the 2026-07-28
# era (its params._meta names the protocol version, or it is server/discover), or any other.
INITIALIZE = "initialize"
MODERN_REQUEST = "modern request"
OTHER_REQUEST = "other request"

ERA_STEPS: dict[tuple[str | None, str], tuple[str | None, bool]] = {
    # (era now, request)          (era after, the policy starts a new session)
    (None, INITIALIZE):           (LEGACY, True),
    (LEGACY, INITIALIZE):         (LEGACY, True),
    (MODERN, INITIALIZE):         (LEGACY, True),
    (None, MODERN_REQUEST):       (MODERN, True),
    (LEGACY, MODERN_REQUEST):     (MODERN, True),
    (MODERN, MODERN_REQUEST):     (MODERN, False),
    (None, OTHER_REQUEST):        (None, False),
    (LEGACY, OTHER_REQUEST):      (LEGACY, False),
    (MODERN, OTHER_REQUEST):      (MODERN, False),
}
"""The era's moves: every (era, request) pair has its row."""


def is_modern(params: Any) -> bool:
    """True when request params carry the 2026-07-28 per-request protocol version."""
    if type(params) is not dict:
        return False
    meta = params.get("_meta")
    return type(meta) is dict and VERSION_KEY in meta


def request_kind(method: Any, modern: bool) -> str:
    """The row of :data:`ERA_STEPS` a client request with ``method`` takes."""
    if method == "initialize":
        return INITIALIZE
    return MODERN_REQUEST if modern else OTHER_REQUEST


now = time.monotonic

ANSWERS_READ = {
    "initialize": "the protocol version the upstream chose is noted",
    "tools/list": "the guarded tools are advertised with their units",
}
"""Methods whose answers the guard reads (besides a guarded tool's call and a guarded tool's
task): the answer to any other request passes as sent (:meth:`PendingTable.pop_passing`)."""


class Pending:
    """A client request forwarded upstream and not yet answered.

    ``arguments`` are those forwarded (guarded calls only); ``task`` marks a task-augmented
    ``tools/call`` (2025-11-25), and for a ``tasks/*`` request about a guarded tool's task it
    is that task's id (a string: see ``tasks.py``); ``cursor`` marks a ``tools/list`` page
    after the first.
    """

    __slots__ = ("method", "id", "modern", "tool", "arguments", "guarded", "task", "cursor",
                 "since", "token", "verdict")

    def __init__(self, method: str, id: Any, modern: bool, tool: str | None = None,
                 arguments: dict | None = None, guarded: bool = False, task: bool = False,
                 cursor: bool = False, verdict: Any = None) -> None:
        self.verdict = verdict  # an observed guarded call's (quantity_guard.observe), or None
        self.since = now()  # sent, or the last progress notification for it (see Guard.expire)
        self.token: tuple | None = None  # its progress token
        self.method = method
        self.id = id
        self.modern = modern
        self.tool = tool
        self.arguments = arguments
        self.guarded = guarded
        self.task = task
        self.cursor = cursor

    def __repr__(self) -> str:
        return f"Pending({self.method!r}, id={self.id!r}, tool={self.tool!r}, guarded={self.guarded})"


class PendingTable:
    """The requests forwarded upstream and not answered: id key -> requests with that id (in
    the order sent), and progress token -> request."""

    __slots__ = ("by_key", "by_token")

    def __init__(self) -> None:
        self.by_key: dict[tuple, list[Pending]] = {}
        self.by_token: dict[tuple, Pending] = {}

    def __contains__(self, key: object) -> bool:
        return key in self.by_key

    def __len__(self) -> int:
        return len(self.by_key)

    def __iter__(self) -> Iterator[Pending]:
        for entries in self.by_key.values():
            yield from entries

    def count(self) -> int:
        return sum(len(v) for v in self.by_key.values())

    def awaited(self) -> int:
        """Requests that end with an answer: all but ``subscriptions/listen``, whose stream
        stays open for as long as the client keeps it."""
        return sum(1 for e in self if e.method != "subscriptions/listen")

    def add(self, msg: rpc.Message, modern: bool, **extra: Any) -> None:
        """Remember the request ``msg`` (unless its id is null or unusable: nobody can match
        an answer to it)."""
        key = msg.key
        if key is None:
            return
        entry = Pending(msg.method or "", msg.id, modern, **extra)
        self.by_key.setdefault(key, []).append(entry)
        params = msg.params
        meta = params.get("_meta") if type(params) is dict else None
        if type(meta) is dict and "progressToken" in meta:
            token = rpc.id_key(meta["progressToken"])
            if token is not None:
                entry.token = token
                self.by_token[token] = entry

    def first(self, key: tuple) -> Pending:
        """The request an answer with id ``key`` answers (``key`` must be pending)."""
        return self.by_key[key][0]

    def pop(self, key: tuple | None, answered: bool = False) -> Pending | None:
        """The pending request ``key`` names, forgotten. Unless it is ``answered`` by a result
        (whose span the guard closes with the answer), its span closes here."""
        if key is None:
            return None
        entries = self.by_key.get(key)
        if not entries:
            return None
        entry = entries.pop(0)
        if not entries:
            del self.by_key[key]
        self._untoken(entry)
        if entry.verdict is not None and not answered:
            entry.verdict.end("error", error_type="no_result")
        return entry

    def pop_passing(self, key: tuple) -> bool:
        """Forget the request an answer with id ``key`` answers, when that answer passes as
        sent: not one of :data:`ANSWERS_READ`, not a guarded tool's call or task, not observed.
        False, with nothing forgotten, otherwise (the answer takes the full path)."""
        entries = self.by_key.get(key)
        if not entries:
            return False
        entry = entries[0]
        if entry.guarded or entry.verdict is not None or entry.task.__class__ is str or \
                entry.method in ANSWERS_READ:
            return False
        del entries[0]
        if not entries:
            del self.by_key[key]
        if entry.token is not None:
            self._untoken(entry)
        return True

    def _untoken(self, entry: Pending) -> None:
        if entry.token is not None and self.by_token.get(entry.token) is entry:
            del self.by_token[entry.token]

    def drain(self) -> list[Pending]:
        """Every pending request, forgotten."""
        out = list(self)
        self.by_key.clear()
        self.by_token.clear()
        return out

    def overdue(self, limit: float) -> list[Pending]:
        """The requests (``subscriptions/listen`` excepted) sent or last reported on more than
        ``limit`` seconds ago, forgotten."""
        moment = now()
        late = [e for e in self if moment - e.since > limit and e.method != "subscriptions/listen"]
        gone = []
        for entry in late:
            key = rpc.id_key(entry.id)
            entries = self.by_key.get(key) if key is not None else None
            if key is None or not entries or entry not in entries:
                continue
            entries.remove(entry)
            if not entries:
                del self.by_key[key]
            self._untoken(entry)
            gone.append(entry)
        return gone

    def progressed(self, token: tuple | None) -> None:
        """A progress notification for ``token``: its request is alive, its timeout starts
        again."""
        waiting = self.by_token.get(token) if token is not None else None
        if waiting is not None:
            waiting.since = now()


class GuardView(Protocol):
    """What the guard's parts (``listing``, ``batch``, ``faults``) use of the guard: its
    policy, counts, pending table and state, and these methods."""

    policy: Any
    stats: dict[str, int]
    table: PendingTable
    listings: Any
    tasks: Any  # the guarded tools' tasks followed to their results (tasks.TaskTable)
    closed: bool
    closed_reason: str | None

    def guarded(self, name: str) -> bool: ...

    def note(self, text: str) -> None: ...

    def observe_era(self, msg: rpc.Message) -> bool: ...

    def forget_cancelled(self, params: Any) -> None: ...

    def rewrite_response(self, entry: Pending, msg: rpc.Message, line_text: str | None,
                         where: tuple[str, int, int] | None) -> Any: ...
