"""A real ``redis-server`` for the store tests: its own port and directory, started and stopped
by the test (``redis_server`` fixture). Where the binary is missing the tests skip and say so;
in CI (env ``CI`` set) they fail instead, since .ci/run installs it."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest


def require_redis() -> str:
    path = shutil.which("redis-server")
    if path is None:
        message = ("redis-server is not installed (apt-get install -y redis-server): the shared "
                   "store tests need a real one")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        import redis  # noqa: F401
    except ImportError:
        message = 'the redis client library is not installed (pip install ".[store]")'
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """``redis-server`` on 127.0.0.1:``port`` with its data in ``directory`` (an append-only
    file, written out on shutdown, so a stop and a start keep everything written)."""

    def __init__(self, directory: str, port: int | None = None) -> None:
        self.binary = require_redis()
        self.directory = directory
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def socket(self) -> str:
        return os.path.join(self.directory, "redis.sock")

    @property
    def unix_url(self) -> str:
        return f"unix://{self.socket}?db=0"

    def start(self) -> "RedisServer":
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.directory,
             "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
             "--protected-mode", "yes", "--daemonize", "no", "--logfile", "redis.log",
             "--unixsocket", self.socket, "--unixsocketperm", "700"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port} (see "
                           f"{self.directory}/redis.log)")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(str(tmp_path)).start()
    try:
        yield server
    finally:
        server.stop()
