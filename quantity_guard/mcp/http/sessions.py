"""A listener's sessions: each a guard (its own policy and ledger) and its upstream, a
child process or a remote MCP server, with the streams its messages go to."""
from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from typing import Any, Literal, Sequence

from ...errors import StoreUnavailable
from .. import jsonrpc as rpc
from ..child import LoopChild, spawn_async, stop_async
from ..gateway import REPLAY_ID, replayed_initialize, unavailable_error
from ..guard import C2S, S2C, Guard
from ..shell import route
from ..identity import ANON, conversation_of
from .admission import error_body
from .client import Client
from .replay import ReplayLog, Stream, Writer
from .upstream import Remote, Sent
from .wire import Head

__all__ = ["Session", "SessionTable", "Catalogue", "QUEUE_LIMIT"]

QUEUE_LIMIT = 1024  # messages kept for a session that has no stream open to take them



class Session:
    """One client conversation: a guard (its own policy and ledger) and its upstream."""

    def __init__(self, listener: Any, sid: str | None, legacy: bool) -> None:
        self.listener = listener
        self.sid = sid
        self.group: str | None = None  # the --session-header value of a 2026-07-28 session
        self.legacy = legacy
        self.client_key: str | None = None  # whose slot it takes (see Admission.client_key)
        self.probation = False  # a 2025 session whose initialize the upstream has not accepted
        self.init_key: tuple | None = None  # ... and that initialize's id
        self.init_failed = False  # ... which the upstream answered with an error
        self.init_line: bytes | None = None  # ... and what a replay needs of it (for --store)
        self.authorization: str | None = None  # the Authorization of the initialize
        self.principal = ANON  # who opened it (identity.principal_of of its credentials)
        self.conversation: tuple[str, str] | None = None  # (principal, its conversation's key)
        self.private: dict[tuple, asyncio.Future] = {}  # the proxy's own requests (see adopt)
        self.guard = Guard(listener.new_policy())
        self.guard.transport, self.guard.session_id = "tcp", sid  # for its calls' spans
        self.last_used = time.monotonic()
        self.by_id: dict[tuple, Stream] = {}  # open request streams by request id
        self.by_token: dict[tuple, Stream] = {}  # ... and by their progress token
        self.get_stream: Stream | None = None
        self.queue: deque[bytes] = deque()
        self.closed = False
        self.proc: LoopChild | None = None
        self.remote: Remote | None = None
        self.client: Client | None = None
        self._child_lines = rpc.LineBuffer()  # the child's stdout, split into lines
        self._ending: asyncio.Task | None = None  # the session ended by its child's exit
        self.replay = ReplayLog()  # event ids and replay (2025 sessions)

    def number(self, stream: Stream) -> None:
        """Give an SSE stream of a 2025 session its number, so its events carry ids."""
        if not self.legacy or not stream.sse:
            return
        version = self.guard.protocol_version
        self.replay.number(stream, prime=version is not None and version >= "2025-11-25")

    async def start(self) -> None:
        L = self.listener
        if L.upstream is not None:
            self.client = Client(L.upstream, cafile=L.cafile, head_timeout=L.upstream_timeout,
                                 idle_timeout=L.upstream_idle_timeout)
            self.remote = Remote(self.client, headers=L.headers, catalogue=self.catalogue, log=L.log,
                                 **({"max_message": L.max_message} if L.max_message else {}))
        else:
            assert L.command
            self.proc = await spawn_async(L.command, self._child_output)

    def catalogue(self) -> Any:
        """Tool definitions for ``Mcp-Param-*`` headers: this session's listing, else the last
        one any session saw (2026-07-28 ``server/tools.mdx``: a listing must not vary per
        connection, and a modern client need not list again on each connection)."""
        return Catalogue(self.guard.catalogue, self.listener.shared_catalogue)

    def _child_output(self, data: bytes) -> None:
        """What the child wrote on its stdout, read by the guard line by line; ``b""``: it
        ended, and so does the session."""
        if data:
            lines = self._child_lines.feed(data)
            lines.reverse()
            while lines:  # each line let go of as soon as the guard has read it
                self.dispatch(self.guard.receive(S2C, lines.pop()), None)
            self._settle()  # the answers are written: the policy's bookkeeping (Guard.settle)
            return
        tail = self._child_lines.flush()
        if tail:
            self.dispatch(self.guard.receive(S2C, tail), None)
        if not self.closed:
            self.dispatch(self.guard.upstream_closed("the upstream MCP server exited"), None)
            self.listener.log(f"the upstream of {self.label()} exited")
            self._ending = asyncio.ensure_future(self.listener.end(self))  # held: not cancelled

    def _write_child(self, line: bytes) -> None:
        if self.proc is not None:
            try:
                self.proc.write(line)
            except (ConnectionError, OSError, RuntimeError):
                pass

    # ------------------------------------------------------------ routing

    def dispatch(self, outputs: list[tuple[str, bytes]], stream: Stream | None) -> None:
        """Send guard outputs: C2S upstream, S2C to ``stream`` when given (the messages of one
        upstream response belong to the POST that asked), else routed by id / progress token."""
        route(outputs, _Sides(self, stream))

    def to_upstream(self, data: bytes, stream: Stream | None) -> None:
        if self.remote is not None:
            self.listener.spawn(self.post_upstream(data, stream))
        else:
            self._write_child(data)

    def deliver(self, data: bytes, stream: Stream | None) -> None:
        answered: tuple | None = None
        token: tuple | None = None
        ident: Any = None
        result = False
        try:
            obj = data.obj if data.__class__ is rpc.Parsed else rpc.loads_lenient(data)
        except rpc.ParseError:
            obj = None
        if type(obj) is dict:
            if "method" not in obj and ("result" in obj or "error" in obj):
                ident, result = obj.get("id"), "result" in obj
                answered = rpc.id_key(ident)
                if answered in self.private:  # the answer to the proxy's own request
                    waiter = self.private.pop(answered)
                    if not waiter.done():
                        waiter.set_result(obj)
                    return
            else:
                params = obj.get("params")
                if type(params) is dict and "progressToken" in params:
                    token = rpc.id_key(params["progressToken"])
        del obj  # the parsed copy is not kept while the message is written
        target = stream if stream is not None and stream.accepts() else None
        if target is not None and not target.sse and answered != target.key:
            target = None  # a JSON response carries only its answer: route the rest elsewhere
        if target is None and answered is not None:
            target = self.by_id.get(answered)
            if target is not None and not target.accepts():
                target = None
        if target is None and answered is not None:
            # 2025-06-18 and 2025-11-25 "Listening for Messages from the Server": a response
            # never goes on the GET stream (nor on another request's stream, nor queued for
            # one) unless it resumes its own stream. Its stream ended before any event with an
            # id (a 2025-06-18 stream has none before its first message), so no Last-Event-ID
            # can ask for it: nobody can receive it.
            self.listener.log(
                f"{self.label()}: the answer to request {rpc.dumps(ident)} "
                "arrived after its client's stream ended before any event it could resume from; "
                "dropped (a response is never sent on another stream)")
            return
        if target is None and token is not None:
            target = self.by_token.get(token)
            if target is not None and not target.accepts():
                target = None
        if target is None and self.get_stream is not None and not self.get_stream.closed:
            target = self.get_stream
        if target is None:
            for candidate in reversed(self.by_id.values()):  # the latest open event stream
                if candidate.sse and not candidate.closed:
                    target = candidate
                    break
        if target is None:
            if len(self.queue) >= QUEUE_LIMIT:
                self.queue.popleft()
                self.listener.log("a session's undelivered message queue is full; dropped the oldest")
            self.queue.append(data)
            return
        if self.probation and answered is not None and answered == self.init_key:
            # the upstream answered initialize: a result admits the session (before the client
            # can read the answer and send its next request), an error leaves it to be ended
            if result:
                try:
                    self.listener.table.confirm(self)
                except StoreUnavailable as exc:  # no replica could serve it: refused
                    self.init_failed = True
                    data = unavailable_error(ident, exc)[:-1]
            else:
                self.init_failed = True
        target.send(data, answered)
        if answered is not None and answered == target.key:
            target.done.set()
            if target.closed:  # kept for a resumption: no POST handler is left to unregister it
                self.forget(target)

    def forget(self, stream: Stream) -> None:
        if stream.key is not None and self.by_id.get(stream.key) is stream:
            del self.by_id[stream.key]
        if stream.token is not None and self.by_token.get(stream.token) is stream:
            del self.by_token[stream.token]

    def _settle(self) -> None:
        logs = self.guard.settle()
        if logs:
            self.dispatch(logs, None)

    async def post_notice(self, line: bytes, extra: Sequence[tuple[str, str]]
                          ) -> tuple[int | None, tuple[int, Any, bytes] | None]:
        """Post a client notification or answer upstream and wait for the upstream's status;
        returns it with the upstream's 401/403 answer, if it refused."""
        assert self.remote is not None
        refused: list[tuple[int, Any, bytes]] = []

        def emit(message: bytes) -> None:
            self.dispatch(self.guard.receive(S2C, message), None)

        sent = Sent(line if line.__class__ is rpc.Parsed else line[:-1])
        status = await self.remote.post(line, emit, extra, lambda st, h, b: refused.append((st, h, b)),
                                        sent=sent)
        self._posted(sent, status)
        return status, refused[0] if refused else None

    def _posted(self, sent: Sent, status: int | None) -> None:
        if sent.method == "notifications/initialized" and status == 202 and self.remote is not None:
            self.remote.start_listening(lambda m: self.dispatch(self.guard.receive(S2C, m), None))

    async def post_upstream(self, line: bytes, stream: Stream | None) -> None:
        assert self.remote is not None
        extra = stream.head_extra_upstream if stream is not None else []

        def emit(message: bytes) -> None:
            self.dispatch(self.guard.receive(S2C, message), stream)
            # the policy's bookkeeping once the answer is written (see Guard.settle)
            asyncio.get_running_loop().call_soon(self._settle)
            version = self.guard.protocol_version
            if version is not None and self.remote is not None and self.remote.protocol_version != version:
                self.remote.protocol_version = version  # the initialize result just went by

        def auth_failure(status: int, headers: Any, body: bytes) -> None:
            if stream is not None:
                stream.auth = (status, headers, body)
                stream.done.set()

        sent = Sent(line if line.__class__ is rpc.Parsed else line[:-1])
        status = await self.remote.post(line, emit, extra, auth_failure, sent=sent)
        self._posted(sent, status)
        if sent.method == "tools/list" and self.guard.catalogue:
            self.listener.shared_catalogue.update(self.guard.catalogue)
        if stream is not None and sent.is_request:
            stream.done.set()

    # ------------------------------------------------------------ end

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for s in list(self.by_id.values()):
            s.done.set()
        if self.get_stream is not None:
            self.get_stream.done.set()
        if self.remote is not None:
            await self.remote.end_session()
            if self.client is not None:
                await self.client.aclose()
        if self.proc is not None:
            await stop_async(self.proc)
        close = getattr(self.guard.policy, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:
                self.listener.write_failed = True
                what = exc.strerror if isinstance(exc, OSError) and exc.strerror else repr(exc)
                self.listener.log(f"the manifest of {self.label()} could not be written ({what}); "
                                  "the previous one, if any, is left as it was")

    def label(self) -> str:
        """How the logs name this session: never its id, which is the client's credential."""
        if self.sid is None:
            return "a 2026-07-28 session" + (" (grouped)" if self.group is not None else "")
        import hashlib
        return "session #" + hashlib.sha256(self.sid.encode()).hexdigest()[:8]


class Catalogue:
    """Look-ups in a session's catalogue, then in the listener's shared one."""

    __slots__ = ("own", "shared")

    def __init__(self, own: dict, shared: dict) -> None:
        self.own, self.shared = own, shared

    def get(self, name: Any, default: Any = None) -> Any:
        tool = self.own.get(name)
        return tool if tool is not None else self.shared.get(name, default)

    def __bool__(self) -> bool:
        return bool(self.own) or bool(self.shared)


class SessionTable:
    """The listener's sessions: 2025 sessions by id (``sessions``), grouped 2026-07-28
    sessions by key (``grouped``), one 2026-07-28 session per connection (``open``) and 2025
    sessions whose initialize is under way (``probation``); with ``--store``, what other
    replicas opened, adopted here."""

    def __init__(self, listener: Any) -> None:
        self.listener = listener
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.grouped: OrderedDict[str, Session] = OrderedDict()
        self.open: set[Session] = set()
        self.probation: set[Session] = set()
        self.adopting: dict[str, asyncio.Future] = {}

    def count(self) -> int:
        return len(self.sessions) + len(self.probation) + len(self.grouped) + len(self.open)

    def every(self) -> list[Session]:
        return list(self.sessions.values()) + list(self.grouped.values()) + list(self.open) \
            + list(self.probation)

    def remove(self, session: Session) -> None:
        if session.sid is not None and self.sessions.get(session.sid) is session:
            del self.sessions[session.sid]
        if session.group is not None and self.grouped.get(session.group) is session:
            del self.grouped[session.group]
        self.open.discard(session)
        self.probation.discard(session)

    def confirm(self, session: Session) -> None:
        """The upstream accepted the session's initialize: it takes its place in the table
        (and, with --store, in the store, so any replica serves it: raises StoreUnavailable)."""
        L = self.listener
        if L.store is not None and session.sid is not None and session.init_line is not None:
            L.directory.opened(session.sid, session.init_line, session.principal,
                               session.guard.protocol_version)
        session.probation = False
        self.probation.discard(session)
        if not session.closed and session.sid is not None:
            self.sessions[session.sid] = session

    def write_back(self) -> None:
        """The store was found emptied: the 2025 sessions this replica holds go back to it."""
        for sid, held in list(self.sessions.items()):
            if held.init_line is not None and not held.closed:
                try:
                    self.listener.directory.opened(sid, held.init_line, held.principal,
                                                   held.guard.protocol_version)
                except (StoreUnavailable, ValueError):
                    pass

    async def expirer(self, limit: float) -> None:
        """Requests a COMMAND upstream leaves unanswered (and without progress) for ``limit``
        seconds get an error and are cancelled upstream (an HTTP upstream has its own limits)."""
        while True:
            await asyncio.sleep(min(1.0, limit / 4))
            for s in self.every():
                if not s.closed and s.guard.pending:
                    s.dispatch(s.guard.expire(limit), None)

    async def reaper(self) -> None:
        L = self.listener
        while True:
            await asyncio.sleep(min(5.0 if L.store is not None else 30.0, L.session_idle / 2))
            now = time.monotonic()
            for s in list(self.sessions.values()) + list(self.grouped.values()) + list(self.probation):
                if now - s.last_used > L.session_idle and not s.by_id:
                    L.log(f"{s.label()} idle for {L.session_idle:g} s; ended")
                    await L.end(s)
            if L.store is not None:
                try:  # the store emptied? what this replica holds is written back (store.py)
                    L.store.check_epoch()
                except L.store._errors as exc:
                    L.store.errored(exc)
            if L.store is not None and self.sessions:
                await self._reap_ended()

    async def _reap_ended(self) -> None:
        """Sessions ended on another replica end here; those the store lost are written back."""
        L = self.listener
        sids = list(self.sessions)
        found = L.directory.alive(sids)
        if found is None:
            return  # the store cannot be asked: nothing is ended for it
        alive, ended = found
        for sid in sids:
            held = self.sessions.get(sid)
            if held is None or sid in alive:
                continue
            if sid in ended:  # ended on another replica (DELETE)
                if not held.by_id:
                    await L.end(held)
            elif held.init_line is not None:  # the store lost it: written back
                try:
                    L.directory.opened(sid, held.init_line, held.principal,
                                       held.guard.protocol_version)
                except (StoreUnavailable, ValueError):
                    pass

    # ------------------------------------------------------------ conversations

    def conversation_group(self, head: Head, sent: Sent) -> str | None:
        """The grouping key of a 2026-07-28 request without a --session-header value: its
        conversation's (a NUL first: no header value can be one); None for a request that
        proves no principal (served by its connection's own session)."""
        L = self.listener
        who, proven = L.admission.principal(head)
        if not proven:
            return None
        params = sent.obj.get("params") if type(sent.obj) is dict else None
        meta = params.get("_meta") if type(params) is dict else None
        return "\0" + conversation_of(meta=meta, principal=who, key=L.identity).key

    def use_conversation(self, session: Session, head: Head, sent: Sent) -> None:
        """Hand the session's policy the ledger of this request's conversation (the first of
        the 2025 session, the --session-header value, the trace id in params._meta, the
        credential with clientInfo: mcp/identity.py)."""
        use = getattr(session.guard.policy, "use_ledger", None)
        if use is None:
            return
        L = self.listener
        kept = session.conversation
        if kept is not None and kept[0] == session.principal:  # a 2025 session's, as before
            key = kept[1]
        else:
            params = sent.obj.get("params") if type(sent.obj) is dict else None
            meta = params.get("_meta") if type(params) is dict else None
            who, proven = (session.principal, True) if session.sid is not None else \
                L.admission.principal(head)
            key = conversation_of(
                session_id=session.sid,
                header=head.headers.get(L.session_header) if L.session_header else None,
                meta=meta, principal=who, proven=proven, key=L.identity).key
            if session.sid is not None:  # the session's alone: the same for each request
                session.conversation = (session.principal, key)
        use(L.conversations.ledger(key) if key else L.conversations.transient())

    # ------------------------------------------------------------ adoption (--store)

    async def adopt(self, sid: str, head: Head, writer: Writer,
                    ident: Any) -> Session | None | bool:
        """Serve a 2025 session another replica opened: its record in the store (opened by this
        credential), a new upstream here, the client's initialize replayed to it under a private
        id (its answer is not forwarded) and notifications/initialized. Returns the session,
        None (unknown here too), or False when the request was answered (the store cannot be
        reached, the table is full, the upstream refused)."""
        waiting = self.adopting.get(sid)
        if waiting is not None:  # another request of the session is adopting it
            return await asyncio.shield(waiting)
        done: asyncio.Future = asyncio.get_running_loop().create_future()
        self.adopting[sid] = done
        result: Session | None | bool = None
        try:
            result = await self._adopt_once(sid, head, writer, ident)
        finally:
            del self.adopting[sid]
            done.set_result(result if result is not False else None)
        return result

    async def _found(self, sid: str, head: Head, writer: Writer,
                     ident: Any) -> dict | None | Literal[False]:
        """The store's record of ``sid`` for this request's principal; False: answered."""
        L = self.listener
        try:
            record = L.directory.find(sid, L.admission.principal(head)[0])
        except StoreUnavailable as exc:
            if ident is not None:
                await L.simple(writer, 503, unavailable_error(ident, exc)[:-1], [("Retry-After", "5")])
            else:
                await L.simple(writer, 503, error_body(exc.repair()), [("Retry-After", "5")])
            return False
        if record is None and time.time() < L.store.lost_until:
            # emptied moments ago: not yet written back
            body = "the shared store was found emptied moments ago; retry in a few seconds"
            await L.simple(writer, 503, rpc.error_line(ident, rpc.INTERNAL_ERROR, body)[:-1]
                           if ident is not None else error_body(body), [("Retry-After", "5")])
            return False
        return record

    async def _adopt_once(self, sid: str, head: Head, writer: Writer,
                          ident: Any) -> Session | None | bool:
        L = self.listener
        authorization = head.headers.get("authorization")
        record = await self._found(sid, head, writer, ident)
        if record is None or record is False:
            return record
        client, distinct = L.admission.client_key(head, writer)
        refused = L.admission.refusal(client, distinct, self.count())
        if refused is not None:
            await L.simple(writer, 503, error_body(refused), [("Retry-After", "5")])
            return False
        try:
            init, note = replayed_initialize(record)
        except (ValueError, TypeError):
            return None
        session = Session(L, sid, legacy=True)
        session.init_line = record["initialize"].encode("utf-8")
        session.authorization = authorization
        session.principal = record["who"]
        L.admission.hold(session, client)
        answer: asyncio.Future = asyncio.get_running_loop().create_future()
        session.private[("s", REPLAY_ID)] = answer
        try:
            await session.start()
            L.forwarded(head, session)  # the client's --forward-header credentials, upstream too
            session.dispatch(session.guard.receive(C2S, init), None)
            got = await asyncio.wait_for(answer, L.upstream_timeout or 300.0)
        except (asyncio.TimeoutError, OSError) as exc:
            got = {"error": {"message": f"{type(exc).__name__}: {exc}"}}
        if type(got) is not dict or "result" not in got or session.closed:
            L.log(f"{session.label()}: the upstream did not accept the replayed initialize")
            await L.end(session)
            await L.simple(writer, 502, error_body(
                "the upstream of this replica did not accept the session's initialize; send "
                "initialize again"))
            return False
        session.dispatch(session.guard.receive(C2S, note), None)
        self.sessions[sid] = session
        return session


class _Sides:
    """A session's two sides for one batch of the guard's outputs (see shell.route): the
    client's side is ``stream`` when given, else where each message is routed."""

    __slots__ = ("session", "stream")

    def __init__(self, session: Session, stream: Stream | None) -> None:
        self.session, self.stream = session, stream

    def to_client(self, data: bytes) -> None:
        self.session.deliver(data, self.stream)

    def to_upstream(self, data: bytes) -> None:
        self.session.to_upstream(data, self.stream)

    def log(self, text: str | bytes) -> None:
        self.session.listener.log(text.decode("utf-8", "replace") if isinstance(text, bytes) else text)
