"""A TCP relay in front of an HTTP listener that cuts one response stream mid-way: for tests
of what a client does (and what the proxy then does) when an SSE stream ends before its answer."""
from __future__ import annotations

import json
import socket
import threading


class CuttingRelay:
    """A TCP relay in front of the proxy that records, per connection, the client's bytes
    (``up``) and the proxy's bytes (``down``), and cuts, once, the connection whose request
    contains ``marker`` right after the proxy's first bytes holding ``trigger`` (by default an
    SSE event id) reach the client: up to the end of that event (or comment) only."""

    def __init__(self, port: int, marker: bytes, trigger: bytes = b"id: ") -> None:
        self.target, self.marker, self.trigger = port, marker, trigger
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.cut = 0
        self.connections: list[dict] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            conn = {"up": b"", "down": b"", "marked": False}
            self.connections.append(conn)
            threading.Thread(target=self._up, args=(client, upstream, conn), daemon=True).start()
            threading.Thread(target=self._down, args=(upstream, client, conn), daemon=True).start()

    def _up(self, src, dst, conn) -> None:
        try:
            while data := src.recv(65536):
                conn["up"] += data
                if self.marker in data and not self.cut:
                    conn["marked"] = True
                dst.sendall(data)
        except OSError:
            pass

    def _down(self, src, dst, conn) -> None:
        try:
            while data := src.recv(65536):
                at = data.find(self.trigger) if conn["marked"] else -1
                if at >= 0:  # up to the end of that event (or comment) only, then the cut
                    end = data.find(b"\n\n", at)
                    data = data[:end + 2] if end >= 0 else data
                conn["down"] += data
                dst.sendall(data)
                if at >= 0:
                    self.cut += 1
                    conn["marked"] = False
                    for s in (src, dst):
                        s.shutdown(socket.SHUT_RDWR)
                        s.close()
                    return
        except OSError:
            pass

    def resumptions(self) -> list[dict]:
        """The connections on which the client resumed a stream: a GET with a Last-Event-ID."""
        return [c for c in self.connections
                if c["up"].startswith(b"GET ") and b"last-event-id" in c["up"].lower()]

    def close(self) -> None:
        self.server.close()


def sse_messages(down: bytes) -> list[dict]:
    """The JSON-RPC messages in the ``data:`` lines of an event stream's bytes."""
    return [json.loads(ln[6:]) for ln in down.split(b"\n") if ln.startswith(b"data: ") and len(ln) > 6]
