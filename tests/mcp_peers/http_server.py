"""The SDK test server of sdk_server.py served over Streamable HTTP by uvicorn (mcp 2.3), for tests.

Binds 127.0.0.1 on a free port and prints ``PORT <n>`` on stdout once listening.
Run: python http_server.py [--json-response] [--stateless] [--page-size N] [--retry-interval MS]
"""
from __future__ import annotations

import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import uvicorn  # noqa: E402

from sdk_server import server  # noqa: E402


def main() -> None:
    kwargs = {}
    if "--retry-interval" in sys.argv:
        kwargs["retry_interval"] = int(sys.argv[sys.argv.index("--retry-interval") + 1])
    app = server.streamable_http_app(json_response="--json-response" in sys.argv,
                                     stateless_http="--stateless" in sys.argv, **kwargs)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, fd=sock.fileno(), log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
